"""A stop asked for between legs, a log cut by a crash, and eval ids that name files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.cli import build_parser
from engine.commands.eval import evaluate
from engine.events import Event, PlanProposed, ReportReady, SessionStarted
from engine.run.runner import drive, open_session
from engine.sessions_log import events_path, load_events, logged
from tests.fixtures.servers import local_settings

DOCS = Path(__file__).resolve().parents[3] / "docs" / "samples"


async def test_a_stop_asked_for_at_the_plan_is_not_lost_to_auto_approval(tmp_path: Path) -> None:
    settings = local_settings(tmp_path, DOCS)
    seen: list[Event] = []
    async with open_session(settings) as session:

        async def on_event(event: Event) -> None:
            seen.append(event)
            if isinstance(event, PlanProposed):
                await session.cancel()  # between legs: no research is running yet

        stream = session.start("How do asyncio queues and locks coordinate tasks?", mode="deep")
        await drive(session, stream, auto_approve=True, on_event=on_event)
        assert await session.stage() == "paused"
    assert any(isinstance(e, PlanProposed) for e in seen)
    assert not any(isinstance(e, ReportReady) for e in seen)


async def test_a_line_cut_by_a_crash_does_not_swallow_the_next_event(tmp_path: Path) -> None:
    settings = local_settings(tmp_path, DOCS)
    path = events_path(settings, "s1")
    path.parent.mkdir(parents=True)
    path.write_text('{"type": "phase_changed", "pha')  # a write the kill cut short

    async def one() -> Any:
        yield SessionStarted(session_id="s1", question="q", mode="quick")

    async for _ in logged(settings, "s1", one()):
        pass
    assert [type(e) for e in load_events(settings, "s1") or []] == [SessionStarted]


@pytest.mark.parametrize("ident", ["../escape", "a/b", "summary", ""])
def test_an_eval_id_that_cannot_name_a_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ident: str
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    dataset = tmp_path / "set.jsonl"
    dataset.write_text(json.dumps({"id": ident, "question": "What is asyncio?"}) + "\n")
    args = build_parser().parse_args(["eval", str(dataset), "--out", str(tmp_path / "out")])
    assert evaluate(args) == 2
    assert "'id' must be letters, digits" in capsys.readouterr().err
