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
from engine.schemas import Claim, SectionDraft
from tests.helpers.scripted_model import ScriptedChatModel, structured_reply
from tests.unit.engine.test_report import deps, state

# Cites no passage it was given, so no sentence of the section stands.
UNCITED = SectionDraft(claims=[Claim(text="Both have their place in modern software.")])
WRITTEN = SectionDraft(
    claims=[
        Claim(text="Alpha is fast.", source_ids=[1]),
        Claim(text="Beta is slow.", source_ids=[2]),
    ]
)


def _section_writer(draft: SectionDraft) -> ScriptedChatModel:
    return ScriptedChatModel(responder=lambda messages: structured_reply(draft))


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


async def test_a_writer_citing_nothing_it_was_given_is_said_atop_the_report(
    tmp_path: Path, events: list[Any]
) -> None:
    result = await finished(tmp_path, _section_writer(UNCITED))
    why = "the writing model wrote no sentence citing the passages it was given"
    report = result["verified_report"]
    assert report.startswith(f"> **Findings only:** {why}")
    # Without a plan the question is the one section; it lists the findings, cited.
    assert "## Findings\n\nAlpha is fast [1].\nBeta is slow [2]." in report
    assert "modern software" not in report
    assert result["audit"]["writer_fallback"] == why
    assert result["audit"]["verification_status"] == "verified"
    ready = [e for e in events if isinstance(e, ReportReady)]
    assert len(ready) == 1 and ready[0].report == report
    details = [e.detail for e in events if isinstance(e, PhaseChanged) and e.detail]
    assert f"report assembled: {why}" in details
    assert Path(result["report_path"]).read_text().startswith("> **Findings only:**")


async def test_a_written_report_carries_no_findings_only_notice(
    tmp_path: Path, events: list[Any]
) -> None:
    result = await finished(tmp_path, _section_writer(WRITTEN))
    assert result["verified_report"].startswith("# Alpha or beta?")
    assert result["audit"]["writer_fallback"] is None
