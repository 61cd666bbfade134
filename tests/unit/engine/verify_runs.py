"""Running the verifier node on a written report, as the graph does, for its ReportReady."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.citations.registry import SourceRegistry
from engine.config import GroundingMode
from engine.events import ReportReady
from engine.nodes.verify import verify_citations
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.test_report import deps, state


async def report_ready(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    report: str,
    registry: SourceRegistry,
    grounding: GroundingMode,
) -> ReportReady:
    """The `ReportReady` the verifier announces for `report` over `registry`'s sources."""
    events: list[Any] = []
    monkeypatch.setattr("engine.nodes.verify.emit", events.append)
    values = {**state(), "final_report": report, "registry": registry.to_dict()}
    runtime = Runtime(context=deps(tmp_path, ScriptedChatModel.sequence([]), grounding=grounding))
    config: RunnableConfig = {"configurable": {"thread_id": tmp_path.name}}
    await verify_citations(values, config, runtime)
    return next(e for e in events if isinstance(e, ReportReady))
