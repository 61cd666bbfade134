"""Elapsed time in the header: true for a quick run that ends within a second, and for a
session reopened from the sessions screen (from what was stored, not the replay's own time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.events import (
    Event,
    PhaseChanged,
    ResearchUnitUpdated,
    RouteDecided,
    RunFinished,
    SessionStarted,
)
from engine.protocol import SessionInfo
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    FakeBackend,
    Hold,
    ScriptedDriver,
    full_story,
    report_event,
    settle,
    unit,
)
from tests.pilot.steps import ask, press_and_settle
from tui.app import DeepResearchApp
from tui.view.elapsed import format_elapsed, stored_elapsed
from tui.widgets.status_header import StatusHeader


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def app_with(
    tmp_path: Path, driver: ScriptedDriver, clock: Clock, **backend: Any
) -> DeepResearchApp:
    fake = FakeBackend(driver, env_path=tmp_path / ".env", **backend)
    return DeepResearchApp(fake, clock=clock, export_dir=tmp_path / "exports")


def header_text(app: DeepResearchApp) -> str:
    return app.research.query_one(StatusHeader).status_text().plain


def quick_run(hold: Hold) -> list[Any]:
    return [
        SessionStarted(session_id=SESSION_ID, question=QUESTION, offline=True),
        PhaseChanged(phase="routing"),
        RouteDecided(mode="quick", reason="a single fact"),
        PhaseChanged(phase="quick_research"),
        hold,
        report_event(mode="quick"),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID),
    ]


async def test_a_quick_run_under_a_second_shows_what_it_took(tmp_path: Path) -> None:
    hold, clock = Hold(), Clock()
    app = app_with(tmp_path, ScriptedDriver({"start": [quick_run(hold)]}), clock)
    async with app.run_test(size=(80, 24)) as pilot:
        pilot.app.screen.query_one("#question").value = QUESTION
        pilot.app.screen.query_one("#question").focus()
        await pilot.press("enter")
        await hold.reached.wait()
        await pilot.pause()
        assert "elapsed 0:00" in header_text(app)  # running: a clock
        clock.now = 100.43
        hold.release.set()
        await settle(pilot)
        assert "elapsed 0:00" in header_text(app), header_text(app)
        # The clock stops with the run.
        clock.now = 160.0
        await pilot.pause(1.2)
        assert "elapsed 0:00" in header_text(app)


def saved(created: str, updated: str, status: str = "completed") -> SessionInfo:
    return SessionInfo(
        session_id=SESSION_ID,
        question=QUESTION,
        created_at=created,
        updated_at=updated,
        status=status,  # type: ignore[arg-type]
        mode="deep",
    )


def finished_log() -> list[Event]:
    story = full_story()
    return [*story["start"][0], *story["review_plan"][0]]  # type: ignore[list-item]


def app_for_saved(tmp_path: Path, info: SessionInfo, log: list[Event]) -> DeepResearchApp:
    # The clock reads long after the session: a replay timed by it would say 0:00.
    return app_with(
        tmp_path,
        ScriptedDriver(full_story()),
        Clock(5000.0),
        sessions=[info],
        logs={SESSION_ID: log},
    )


async def test_a_reopened_session_shows_the_time_it_took_not_zero(tmp_path: Path) -> None:
    info = saved("2025-01-02T10:00:00+00:00", "2025-01-02T10:03:07+00:00")
    app = app_for_saved(tmp_path, info, finished_log())
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        assert app.research.view.session_id == SESSION_ID
        assert "elapsed 3:07" in header_text(app), header_text(app)
        await pilot.pause(1.2)  # a reopened session's clock does not run
        assert "elapsed 3:07" in header_text(app)


def test_stored_elapsed_reads_the_last_questions_span() -> None:
    created, updated = "2025-01-02T10:00:00", "2025-01-02T10:00:00"
    started = SessionStarted(session_id=SESSION_ID, question=QUESTION)
    base = 1735812000.0  # 2025-01-02T10:00:00Z
    done = [PhaseChanged(phase="done"), RunFinished(session_id=SESSION_ID)]
    # The row's whole seconds say 0; the unit's own finish time says how long it really was.
    finer = [started, ResearchUnitUpdated(unit=unit(1, finished_at=base + 0.6)), *done]
    assert stored_elapsed(finer, created, updated) == pytest.approx(0.6)
    # Not ended: unknown. A follow-up question: its start was never stored.
    assert stored_elapsed([started, PhaseChanged(phase="plan_review")], created, updated) is None
    assert stored_elapsed([started, *done, started, *done], created, updated) is None
    # A resumed leg is the same question: the span runs from the question to the end.
    resumed = started.model_copy(update={"resumed": True})
    assert stored_elapsed([started, resumed, *done], created, "2025-01-02T10:00:42") == 42


def test_format_elapsed_is_one_clock_while_running_and_once_done() -> None:
    assert format_elapsed(0.43, final=False) == "0:00"
    assert format_elapsed(0.43, final=True) == "0:00"
    assert format_elapsed(42.4, final=True) == "0:42"
    assert format_elapsed(3725, final=True) == "1:02:05"
    assert format_elapsed(187, final=True) == "3:07"
    assert format_elapsed(187, final=False) == "3:07"


async def test_elapsed_stays_on_the_header_line_at_80_columns(tmp_path: Path) -> None:
    from engine.events import RuntimeProgress

    story = full_story()
    # A gate with two-digit counts and a reason, as a real run reports it.
    story["review_plan"][0].insert(
        -3,
        RuntimeProgress(
            quality_gate_status="pass",
            quality_gate_reason="enough evidence",
            min_evidence_records=5,
            min_source_domains=3,
            evidence_record_count=20,
            source_domain_count=4,
        ),
    )
    app = app_with(tmp_path, ScriptedDriver(story), Clock())
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        line = header_text(app)
        assert "gate 20 records (need 5) · 4 domains (need 3)" in line
        shown = line[: app.size.width]  # the header is one line, cut at the edge
        assert "elapsed 0:00" in shown, line
