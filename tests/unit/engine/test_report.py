"""final_report: context-overflow retries, the notes fallback, meta lines, the Sources section."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.events import OFFLINE_NOTICE
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.nodes.report import ensure_sources_section, final_report, strip_meta_lines
from engine.nodes.verify import verify_citations
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.conftest import make_settings


class ContextOverflow(Exception):
    def __init__(self) -> None:
        super().__init__("Error code: 400 - This model's maximum context length is 8192 tokens")


RECORDS = [
    EvidenceRecord(id="u-e1", claim="Alpha is fast.", source_urls=["https://a.example.org/1"]),
    EvidenceRecord(id="u-e2", claim="Beta is slow.", source_urls=["https://b.example.org/2"]),
]


def state(notes: int = 5) -> dict:
    registry = SourceRegistry.from_sources(
        urls=["https://a.example.org/1", "https://b.example.org/2"]
    )
    return {
        "question": "Alpha or beta?",
        "research_brief": "brief",
        "notes": [f"- note {i} " + "word " * 50 for i in range(notes)],
        "raw_notes": [f"raw {i}" for i in range(notes)],
        "evidence_ledger": [r.model_dump() for r in RECORDS],
        "registry": registry.to_dict(),
    }


def deps(tmp_path: Path, model, **settings) -> EngineDeps:
    return EngineDeps(
        settings=make_settings(tmp_path, **settings),
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: [],
        retry=RetryPolicy(max_retries=0),
    )


async def test_overflow_retries_with_smaller_note_subsets_then_succeeds(tmp_path: Path):
    model = ScriptedChatModel.sequence(
        [
            ContextOverflow(),
            ContextOverflow(),
            "Alpha is fast [1].\n\n## Sources\n[1] https://a.example.org/1",
        ]
    )
    result = await final_report(state(notes=10), Runtime(context=deps(tmp_path, model)))
    sizes = [
        sum(len(m.content) for m in call if isinstance(m, HumanMessage)) for call in model.calls
    ]
    assert len(sizes) == 3 and sizes[0] > sizes[1] > sizes[2]
    assert result["final_report"].startswith("Alpha is fast [1].")


async def test_three_overflows_fall_back_to_a_report_assembled_from_the_ledger(tmp_path: Path):
    model = ScriptedChatModel.sequence([ContextOverflow()] * 3)
    result = await final_report(state(), Runtime(context=deps(tmp_path, model)))
    report = result["final_report"]
    assert len(model.calls) == 3
    assert "- Alpha is fast. [1]" in report and "- Beta is slow. [2]" in report
    assert report.rstrip().endswith("[1] https://a.example.org/1\n[2] https://b.example.org/2")


def test_meta_lines_are_stripped_and_a_missing_sources_section_is_added():
    text = "# Title\nConductResearch dispatched 3 units\nAlpha is fast [1].\ntool_call_id=abc\n"
    cleaned = strip_meta_lines(text)
    assert cleaned == "# Title\nAlpha is fast [1]."
    registry = SourceRegistry.from_sources(
        urls=["https://a.example.org/1", "https://b.example.org/2"]
    )
    with_sources = ensure_sources_section(cleaned, RECORDS, registry)
    assert with_sources.endswith(
        "## Sources\n[1] https://a.example.org/1\n[2] https://b.example.org/2\n"
    )
    own = "Alpha [1].\n\n## Sources\n[1] https://a.example.org/1"
    assert ensure_sources_section(own, RECORDS, registry) == own


async def test_verification_removes_unretrieved_citations_and_marks_offline_reports(tmp_path: Path):
    engine_deps = deps(tmp_path, ScriptedChatModel.sequence([]), orchestrator_model="offline")
    runtime = Runtime(context=engine_deps)
    report = (
        "Alpha is fast [1]. Gamma is invented [2].\n\n## Sources\n"
        "[1] https://a.example.org/1\n[2] https://invented.example.com/x"
    )
    config: RunnableConfig = {"configurable": {"thread_id": "s1"}}
    result = await verify_citations({**state(), "final_report": report}, config, runtime)
    assert result["verified_report"].startswith(f"> {OFFLINE_NOTICE}\n\n")
    assert "invented.example.com" not in result["verified_report"]
    removed = result["audit"]["removed_citations"]
    assert removed == [
        {"number": 2, "source": "https://invented.example.com/x", "reason": "url_not_in_registry"}
    ]
    assert Path(result["report_path"]).name == "s1.md"
    assert Path(result["audit_path"]).name == "s1.audit.json"


LEDGER_STATE_RECORDS = [
    EvidenceRecord(
        id="u-e1",
        claim="Asyncio tasks run on one event loop thread and switch at await points.",
        source_urls=["https://a.example.org/1"],
    ),
    EvidenceRecord(
        id="u-e2",
        claim="Threads in CPython share the global interpreter lock during bytecode.",
        source_urls=["https://b.example.org/2"],
    ),
]


async def test_a_writer_that_cites_nothing_gets_the_ledger_claims_it_restates_cited(
    tmp_path: Path,
):
    writer = (
        "# Tasks and threads\n\n"
        "Asyncio tasks switch at await points on one event loop thread. "
        "Threads share the global interpreter lock in CPython. "
        "Both have their place in modern software."
    )
    model = ScriptedChatModel.sequence([writer])
    given = {**state(), "evidence_ledger": [r.model_dump() for r in LEDGER_STATE_RECORDS]}
    report = (await final_report(given, Runtime(context=deps(tmp_path, model))))["final_report"]
    assert "one event loop thread [1]." in report
    assert "lock in CPython [2]." in report
    assert "modern software." in report and "software [" not in report
    assert report.rstrip().endswith("[1] https://a.example.org/1\n[2] https://b.example.org/2")


async def test_a_report_that_lists_sources_but_cites_none_is_not_verified(tmp_path: Path):
    engine_deps = deps(tmp_path, ScriptedChatModel.sequence([]))
    runtime = Runtime(context=engine_deps)
    report = "Alpha is fast.\n\n## Sources\n[1] https://a.example.org/1"
    config: RunnableConfig = {"configurable": {"thread_id": "s2"}}
    result = await verify_citations({**state(), "final_report": report}, config, runtime)
    assert result["audit"]["verification_status"] == "unverified"
    assert result["audit"]["verification_reason"] == "no_inline_citations"
    assert "no sentence cites one" in result["verified_report"]


async def test_a_writer_that_lists_sources_but_cites_nothing_inline_is_cited_from_the_ledger(
    tmp_path: Path,
):
    # The bundled local model over undici's pages: every draft restated the ledger and ended
    # with its own Sources list, with no [n] in the text; four drafts were refused as citing
    # nothing and the report was assembled from the notes instead.
    writer = (
        "### Tasks\n"
        "Asyncio tasks switch at await points on one event loop thread.\n\n"
        "### Threads\n"
        "Each `Thread` object is an operating system thread. "
        "Threads share the global interpreter lock in CPython.\n\n"
        "## Sources\n"
        "[1] Threads — b.example.org\n"
        "[2] Tasks — a.example.org\n"
    )
    model = ScriptedChatModel.sequence([writer])
    given = {**state(), "evidence_ledger": [r.model_dump() for r in LEDGER_STATE_RECORDS]}
    result = await final_report(given, Runtime(context=deps(tmp_path, model, critic_rounds=0)))
    report = result["final_report"]
    assert result["writer_fallback"] is None
    assert "one event loop thread [1]." in report
    assert "lock in CPython [2]." in report
    assert "operating system thread. " in report
    assert "Threads — b.example.org" not in report
    assert report.rstrip().endswith("[1] https://a.example.org/1\n[2] https://b.example.org/2")
    assert len(model.calls) == 1
