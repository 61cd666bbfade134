"""The writer's draft checked against the evidence ledger, and written again when it fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from engine.events import PhaseChanged
from engine.grounding.ledger_check import check_draft
from engine.nodes.report import final_report
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.grounding.test_critic import GOOD, RECORDS, SOURCES, _deps, _registry, _state

UNLISTED = GOOD.replace("calls [1].", "calls [1]. Queue.join() blocks until processed [7].")
OUTSIDE = (
    "# Report\n\nlru_cache saves up to 128 recent calls [1].\n\n"
    "## Sources\n[1] Blog — https://blog.example.com/lru\n"
)


def test_a_draft_whose_claims_cite_ledger_sources_passes() -> None:
    check = check_draft(GOOD, RECORDS, _registry())
    assert check.ok and check.grounded_claims == 1
    assert [s.locator for s in check.report.sources] == ["f.html", "q.html"]


def test_a_cited_number_the_sources_section_lacks_is_named() -> None:
    check = check_draft(UNLISTED, RECORDS, _registry())
    assert check.errors == [
        '"Queue.join() blocks until processed." cites [7], but your Sources section has '
        "no such entry."
    ]
    assert check.grounded_claims == 1


def test_a_listed_source_outside_the_ledger_is_named() -> None:
    registry = _registry()
    registry.add_url("https://blog.example.com/lru", "Blog", "lru_cache saves 128 calls.")
    check = check_draft(OUTSIDE, RECORDS, registry)
    assert len(check.errors) == 1
    assert (
        "lists https://blog.example.com/lru, which is not in the evidence ledger"
        in (check.errors[0])
    )
    assert check.grounded_claims == 0


def test_a_draft_citing_nothing_fails_only_when_there_is_evidence() -> None:
    uncited = f"# Report\n\nlru_cache saves calls.\n\n{SOURCES}"
    assert check_draft(uncited, RECORDS, _registry()).errors[0].startswith("No sentence cites")
    assert check_draft(uncited, [], _registry()).ok


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    captured: list[Any] = []
    monkeypatch.setattr("engine.nodes.report.emit", captured.append)
    return captured


async def test_a_failing_draft_is_written_again_with_the_errors_fed_back(
    tmp_path: Path, events: list[Any]
) -> None:
    model = ScriptedChatModel.sequence([UNLISTED, GOOD])
    result = await final_report(_state(), Runtime(context=_deps(tmp_path, model, rounds=0)))
    assert result["final_report"] == GOOD.strip()
    assert len(model.calls) == 2
    retry = next(m.content for m in model.calls[1] if isinstance(m, HumanMessage))
    assert "## Your draft" in retry and "cites [7]" in retry
    assert "- functools: f.html" in retry and "- Queues: q.html" in retry
    details = [e.detail for e in events if isinstance(e, PhaseChanged) and e.detail]
    assert details == [
        "the draft cites sources outside the evidence; writing it again (attempt 2 of 4)"
    ]


async def test_attempts_are_bounded_and_the_draft_with_fewest_errors_is_kept(
    tmp_path: Path, events: list[Any]
) -> None:
    worse = UNLISTED.replace("calls [1].", "calls [1]. It is fast [8].")
    model = ScriptedChatModel.sequence([worse, UNLISTED, worse, worse, GOOD])
    result = await final_report(_state(), Runtime(context=_deps(tmp_path, model, rounds=0)))
    assert len(model.calls) == 4  # 4' default
    assert result["final_report"] == UNLISTED.strip()


async def test_no_draft_grounding_a_claim_falls_back_to_the_ledger(
    tmp_path: Path, events: list[Any]
) -> None:
    stray = "# Report\n\nlru_cache is fast [4].\n\n## Sources\n[1] functools — f.html\n"
    model = ScriptedChatModel.sequence([stray] * 4)
    result = await final_report(_state(), Runtime(context=_deps(tmp_path, model, rounds=0)))
    assert len(model.calls) == 4
    report = result["final_report"]
    assert "## Findings" in report and "- lru_cache saves up to 128 calls. [1]" in report


async def test_writer_attempts_one_keeps_the_first_draft(tmp_path: Path, events: list[Any]) -> None:
    model = ScriptedChatModel.sequence([UNLISTED, GOOD])
    deps = _deps(tmp_path, model, rounds=0)
    deps.settings = deps.settings.model_copy(update={"writer_attempts": 1})
    result = await final_report(_state(), Runtime(context=deps))
    assert len(model.calls) == 1 and result["final_report"] == UNLISTED.strip()
