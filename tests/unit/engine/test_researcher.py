"""One research unit: middleware inside the deepagents researcher, evidence extraction, caps."""

from __future__ import annotations

from pathlib import Path

import httpx
from langchain_core.messages import ToolMessage

from engine.citations.registry import SourceRegistry
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.nodes.extraction import compress_notes, evidence_from_text
from engine.nodes.researcher import run_research_unit
from tests.helpers.scripted_model import ScriptedChatModel, tool_call_message
from tests.unit.engine.conftest import fake_tools, make_settings

FINDINGS = (
    "Alpha caches expire after ten minutes [1]. Alpha may also revalidate early [2]. "
    "An uncited sentence.\n\nSources:\n[1] A: https://alpha.example.org/article-1\n"
    "[2] B: https://alpha.example.org/article-2"
)


def deps_for(settings, model) -> EngineDeps:
    return EngineDeps(
        settings=settings,
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: fake_tools(registry, unit_id),
        retry=RetryPolicy(max_retries=3, base_delay=0.0),
    )


async def test_a_mangled_tool_name_and_a_transient_error_do_not_derail_a_researcher(tmp_path: Path):
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    overloaded = httpx.HTTPStatusError(
        "503", request=request, response=httpx.Response(503, request=request)
    )
    model = ScriptedChatModel.sequence(
        [
            overloaded,
            tool_call_message("functions.Search-Web", {"query": "alpha query"}),
            tool_call_message("summon_oracle", {}),
            FINDINGS,
        ]
    )
    outcome = await run_research_unit(deps_for(make_settings(tmp_path), model), "unit-1", "alpha")
    assert outcome.status == "completed"
    assert [r.claim for r in outcome.records] == [
        "Alpha caches expire after ten minutes.",
        "Alpha may also revalidate early.",
    ]
    assert outcome.records[1].contradiction_or_uncertainty is not None
    assert outcome.records[0].contradiction_or_uncertainty is None
    tool_replies = [m for m in model.calls[-1] if isinstance(m, ToolMessage)]
    assert tool_replies[0].content.startswith('Search results for "alpha query"')
    assert (
        tool_replies[1].status == "error"
        and "no tool named 'summon_oracle'" in tool_replies[1].content
    )


def test_evidence_keeps_only_retrieved_sources_and_respects_both_caps():
    registry = SourceRegistry.from_sources(
        urls=["https://alpha.example.org/article-1", "https://beta.example.org/x"]
    )
    text = (
        "Alpha one holds [1][2][3]. Alpha two holds [1]. Beta three holds [2]. "
        "Gamma four holds [3].\n\nSources:\n"
        "[1] https://alpha.example.org/article-1\n[2] https://beta.example.org/x\n"
        "[3] https://never-retrieved.example.com/"
    )
    records = evidence_from_text(text, registry, unit_id="u", max_claims=2, max_sources_per_claim=1)
    assert [(r.claim, r.source_urls) for r in records] == [
        ("Alpha one holds.", ["https://alpha.example.org/article-1"]),
        ("Alpha two holds.", ["https://alpha.example.org/article-1"]),
    ]
    everything = evidence_from_text(
        text, registry, unit_id="u", max_claims=10, max_sources_per_claim=5
    )
    assert [r.claim for r in everything] == [
        "Alpha one holds.",
        "Alpha two holds.",
        "Beta three holds.",
    ]  # "four" cites nothing retrieved
    assert everything[0].source_urls == [
        "https://alpha.example.org/article-1",
        "https://beta.example.org/x",
    ]


def test_notes_are_compressed_to_the_bullet_and_word_budgets():
    text = "\n".join(f"Finding {i} has five words." for i in range(10)) + "\nSources:\n[1] x"
    assert compress_notes(text, max_bullets=3, word_budget=100).count("\n") == 2
    assert compress_notes(text, max_bullets=40, word_budget=50).count("- ") == 10
    assert compress_notes(text, max_bullets=40, word_budget=12).count("- ") == 2


async def test_a_units_tools_rank_long_texts_against_its_topic(tmp_path: Path):
    focuses: list[str | None] = []

    def tools_for(registry, unit_id, focus=None):
        focuses.append(focus)
        return fake_tools(registry, unit_id)

    deps = EngineDeps(
        settings=make_settings(tmp_path),
        model_for=lambda role: ScriptedChatModel.sequence([FINDINGS]),
        tools_for=tools_for,
        retry=RetryPolicy(max_retries=0),
    )
    await run_research_unit(deps, "unit-1", "How long do alpha caches live?")
    assert "How long do alpha caches live?" in focuses


def test_notes_keep_the_dashes_of_an_option_a_finding_opens_with():
    text = "- -a, --all: Vacuum all databases [1].\n* --index-version: Write the index [2]."

    notes = compress_notes(text, max_bullets=5, word_budget=100)

    assert notes.splitlines() == [
        "- -a, --all: Vacuum all databases [1].",
        "- --index-version: Write the index [2].",
    ]


def test_notes_end_at_the_references_the_engine_completes_and_skip_bare_numbers():
    # A 1.5B unit's findings as `sourced_text` completes them: a line of numbers alone, then
    # its findings, then the references list under a Markdown heading.
    text = (
        "- [1] [2] [3] [4]\n- Autovacuum runs ANALYZE when a table changed enough [1].\n"
        "\n## References\n[1] 25.1. Routine Vacuuming — routine-vacuuming.html\n"
    )

    notes = compress_notes(text, max_bullets=5, word_budget=100)

    assert notes.splitlines() == ["- Autovacuum runs ANALYZE when a table changed enough [1]."]
