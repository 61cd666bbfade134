"""A report assembled from the ledger because the writer failed says so, atop the report,
in its audit and in the event the app renders; a written report says nothing of the kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.events import PhaseChanged, ReportReady
from engine.nodes.report import final_report
from engine.nodes.verify import verify_citations
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.test_report import ContextOverflow, deps, state

# Cites nothing and restates no ledger claim, so no draft grounds a claim.
UNCITED = "# Alpha or beta\n\nBoth have their place in modern software."
WRITTEN = "Alpha is fast [1].\n\n## Sources\n[1] https://a.example.org/1"


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    captured: list[Any] = []
    monkeypatch.setattr("engine.nodes.report.emit", captured.append)
    monkeypatch.setattr("engine.nodes.verify.emit", captured.append)
    return captured


async def finished(tmp_path: Path, model: ScriptedChatModel) -> dict[str, Any]:
    runtime = Runtime(context=deps(tmp_path, model, critic_rounds=0))
    written = await final_report(state(), runtime)
    config: RunnableConfig = {"configurable": {"thread_id": "fallback"}}
    return await verify_citations({**state(), **written}, config, runtime)


async def test_a_writer_failing_every_attempt_is_said_atop_the_report(
    tmp_path: Path, events: list[Any]
) -> None:
    model = ScriptedChatModel.sequence([UNCITED] * 4)
    result = await finished(tmp_path, model)
    assert len(model.calls) == 4
    why = "the writing model did not produce a cited report after 4 attempts"
    report = result["verified_report"]
    assert report.startswith(
        f"> **Findings only:** {why}; this report lists the research findings as recorded, "
        "without a written synthesis.\n\n# Alpha or beta?\n\n## Findings\n- Alpha is fast. [1]"
    )
    assert result["audit"]["writer_fallback"] == why
    # The ledger's citations are sound, so only the notice tells it from a written report.
    assert result["audit"]["verification_status"] == "verified"
    ready = [e for e in events if isinstance(e, ReportReady)]
    assert len(ready) == 1 and ready[0].report == report
    details = [e.detail for e in events if isinstance(e, PhaseChanged) and e.detail]
    assert f"report assembled from the research notes: {why}" in details
    assert Path(result["report_path"]).read_text().startswith("> **Findings only:**")


async def test_notes_too_long_for_the_writer_are_named_as_the_reason(
    tmp_path: Path, events: list[Any]
) -> None:
    result = await finished(tmp_path, ScriptedChatModel.sequence([ContextOverflow()] * 3))
    assert result["verified_report"].startswith(
        "> **Findings only:** the research notes did not fit the writing model's context"
    )


async def test_a_written_report_carries_no_findings_only_notice(
    tmp_path: Path, events: list[Any]
) -> None:
    result = await finished(tmp_path, ScriptedChatModel.sequence([WRITTEN]))
    assert result["verified_report"].startswith("Alpha is fast [1].")
    assert result["audit"]["writer_fallback"] is None
