"""A list item of the verified report has one bullet, however the writer doubled it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.nodes.list_bullets import one_bullet_per_item
from engine.nodes.verify import verify_citations
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.test_report import deps, state

DOUBLED = (
    "# Alpha\n\n- - Alpha is fast [1].\n- • Beta is slow [1].\n\n"
    "## Sources\n[1] https://a.example.org/1"
)


def test_a_bullet_after_the_list_bullet_goes() -> None:
    assert one_bullet_per_item("- - one\n  * - two\n- three") == "- one\n  * two\n- three"


def test_code_blocks_and_plain_dashes_stay() -> None:
    text = "```\n- - literal\n```\n- a - b\n- *emphasis* here"
    assert one_bullet_per_item(text) == text


async def test_the_verified_report_has_one_bullet_per_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    captured: list[Any] = []
    monkeypatch.setattr("engine.nodes.verify.emit", captured.append)
    runtime = Runtime(context=deps(tmp_path, ScriptedChatModel.sequence([]), critic_rounds=0))
    written = {"final_report": DOUBLED, "writer_fallback": None}
    config: RunnableConfig = {"configurable": {"thread_id": "bullets"}}
    report = (await verify_citations({**state(), **written}, config, runtime))["verified_report"]
    assert "- - " not in report and "- • " not in report
    assert "- Alpha is fast [1]." in report
