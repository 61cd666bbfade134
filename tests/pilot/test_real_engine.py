"""The app driving the real engine: offline extractive model, sample corpus, real checkpoints.

No scripted driver here: `EngineBackend` opens real sessions, so these tests catch wiring
faults between the app and `engine.run.runner` that the scripted tests cannot. The sample corpus
is indexed once per test session and each test copies the index into its own data directory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Markdown

from engine.config import Settings, settings_from_mapping
from engine.protocol import SessionDriver
from tests.helpers.sample_index import seed_sample_index
from tests.pilot.fakes import settle
from tests.pilot.steps import ask, press_and_settle
from tui.app import DeepResearchApp
from tui.link.engine_backend import EngineBackend
from tui.screens.sessions import SessionsScreen
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable

QUESTION = "How are asyncio tasks cancelled and how do timeouts use cancellation?"

# A loaded machine runs the offline engine slowly; these bound the whole test, not a step.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def engine_settings(tmp_path: Path) -> Settings:
    data_dir = seed_sample_index(tmp_path / "data")
    return settings_from_mapping(
        {"DATA_DIR": str(data_dir), "MIN_EVIDENCE_RECORDS": "3", "MIN_SOURCE_DOMAINS": "2"}
    )


class GatedEngineBackend(EngineBackend):
    """The real engine, except that every research unit but the first waits at its tools.

    That holds the run mid-research for as long as the test needs, so cancelling it is
    deterministic; opening the gate lets a resumed run finish.
    """

    def __init__(self, settings: Settings, cwd: Path) -> None:
        super().__init__(settings, cwd)
        self.gate = asyncio.Event()

    def _gated(self, call: Callable[..., Any]) -> Callable[..., Any]:
        async def wait_then_call(*args: Any, **kwargs: Any) -> Any:
            await self.gate.wait()
            return await call(*args, **kwargs)

        return wait_then_call

    @asynccontextmanager
    async def open_session(self, session_id: str | None) -> AsyncIterator[SessionDriver]:
        from engine.nodes.deps import default_deps
        from engine.run.runner import open_session

        deps = default_deps(self.settings)
        build_tools = deps.tools_for

        def tools_for(registry: Any, unit_id: str | None, focus: str | None = None) -> list[Any]:
            tools = build_tools(registry, unit_id)
            if unit_id not in (None, "unit-1"):
                for tool in tools:
                    tool.coroutine = self._gated(tool.coroutine)
            return tools

        deps.tools_for = tools_for
        async with open_session(self.settings, session_id, deps=deps) as session:
            yield session


def app_for(backend: EngineBackend, tmp_path: Path) -> DeepResearchApp:
    return DeepResearchApp(backend, export_dir=tmp_path / "exports")


def cell(table: DataTable[Any], row: int, column: str) -> str:
    return str(table.get_cell_at(table.get_cell_coordinate(table.ordered_rows[row].key, column)))


def header_line(app: DeepResearchApp) -> str:
    return app.research.query_one(StatusHeader).status_text().plain


async def wait_until(pilot: Any, condition: Callable[[], bool], seconds: float = 300) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting for the engine"
        await pilot.pause(0.05)


async def test_question_to_verified_report_then_reopen_it(
    tmp_path: Path, engine_settings: Settings
) -> None:
    app = app_for(EngineBackend(engine_settings, cwd=tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, QUESTION)
        plan = app.screen.query_one(PlanPane)
        header = app.screen.query_one(StatusHeader)
        # Settling is bounded, not a promise that every message was handled: on a loaded
        # machine the screen may still be catching up. Each step waits for what it needs.
        await wait_until(
            pilot, lambda: plan.reviewing and "plan awaiting your review" in header_line(app)
        )
        assert plan.draft is not None
        tracks = plan.draft.plan.tracks
        assert len(tracks) >= 2
        assert header.has_class("-offline")

        await press_and_settle(pilot, "y")
        report_pane = app.screen.query_one(ReportPane)
        ledger = app.screen.query_one(LedgerPane)
        view = app.research.view
        await wait_until(
            pilot,
            lambda: (
                report_pane.report is not None
                and "done" in header_line(app)
                and ledger.query_one(DataTable).row_count == len(view.records)
            ),
        )

        units = app.screen.query_one(UnitsTable)
        assert units.row_count >= 1
        statuses = {cell(units, row, "status") for row in range(units.row_count)}
        assert statuses == {"completed"}, statuses
        assert len(view.records) >= 3
        report = report_pane.report
        assert report is not None and report.verification_status == "verified"
        assert report_pane.marks, "an offline report cites its sources"
        for track in tracks:
            assert f"## {track.section}" in report.report
        assert "done" in header.status_text().plain
        assert "pass" in header.status_text().plain
        session_id = view.session_id

        # A fresh session empties the panes; the sessions screen brings the report back.
        await press_and_settle(pilot, "ctrl+n")
        await wait_until(pilot, lambda: report_pane.report is None, 30)
        await press_and_settle(pilot, "f2")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), 30)
        sessions = app.screen
        assert isinstance(sessions, SessionsScreen)
        await wait_until(pilot, lambda: bool(sessions.sessions), 30)
        finished = [info for info in sessions.sessions if info.session_id == session_id]
        assert finished and finished[0].status == "completed"
        table = sessions.query_one(DataTable)
        table.move_cursor(row=sessions.sessions.index(finished[0]))
        await press_and_settle(pilot, "enter")
        first_section = f"## {tracks[0].section}"

        def reopened_whole() -> bool:
            if isinstance(app.screen, SessionsScreen):
                return False
            reopened = app.screen.query_one(ReportPane).report
            body = app.screen.query_one("#report-body", Markdown)
            return (
                reopened is not None
                and first_section in reopened.report
                and first_section in body.source
            )

        await wait_until(pilot, reopened_whole, 60)
        assert app.research.view.session_id == session_id


async def test_cancel_mid_research_then_resume_from_sessions(
    tmp_path: Path, engine_settings: Settings
) -> None:
    backend = GatedEngineBackend(engine_settings, cwd=tmp_path)
    app = app_for(backend, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, QUESTION)
        assert app.screen.query_one(PlanPane).reviewing
        await pilot.press("y")
        units = app.screen.query_one(UnitsTable)

        def first_unit_done() -> bool:
            return any(cell(units, row, "status") == "completed" for row in range(units.row_count))

        await wait_until(pilot, first_unit_done)
        assert app.link.running
        await press_and_settle(pilot, "ctrl+x")
        assert not app.link.running
        notice = app.screen.query_one(RunNotice)
        assert "resume" in str(notice.render()).lower()
        assert app.screen.query_one(ReportPane).report is None
        session_id = app.research.view.session_id

        backend.gate.set()
        await press_and_settle(pilot, "f2")
        sessions = app.screen
        assert isinstance(sessions, SessionsScreen)
        await wait_until(pilot, lambda: bool(sessions.sessions), 30)
        (saved,) = [info for info in sessions.sessions if info.session_id == session_id]
        assert saved.status == "interrupted"
        sessions.query_one(DataTable).move_cursor(row=sessions.sessions.index(saved))
        await press_and_settle(pilot, "enter")
        await wait_until(pilot, lambda: app.research.view.report is not None)
        await settle(pilot)

        report = app.screen.query_one(ReportPane).report
        assert report is not None and report.verification_status == "verified"
        assert app.research.view.session_id == session_id
        assert "done" in app.screen.query_one(StatusHeader).status_text().plain
    from engine.events import PhaseChanged, SessionStarted
    from engine.sessions import get_session
    from engine.sessions_log import load_events

    final = get_session(engine_settings, session_id)
    assert final is not None and final.status == "completed"
    # The resumed run says at once where it is: the cancel is not its last word.
    events = load_events(engine_settings, session_id) or []
    at = next(i for i, e in enumerate(events) if isinstance(e, SessionStarted) and e.resumed)
    after = events[at + 1]
    assert isinstance(after, PhaseChanged) and after.phase == "researching", after
    assert all(e.at is not None for e in events if isinstance(e, SessionStarted))


async def test_an_edited_plan_is_stored_approved_and_reopens_edited(
    tmp_path: Path, engine_settings: Settings
) -> None:
    from engine.events import PlanApproved
    from engine.sessions_log import load_events

    app = app_for(EngineBackend(engine_settings, cwd=tmp_path), tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, QUESTION)
        plan = app.screen.query_one(PlanPane)
        await press_and_settle(pilot, "J")  # the first track moves down: an edit
        assert plan.draft is not None and plan.draft.changed
        edited = plan.draft.plan
        await pilot.press("y")
        await wait_until(pilot, lambda: app.research.view.report is not None)
        await settle(pilot)
        session_id = app.research.view.session_id
        approvals = [
            event
            for event in load_events(engine_settings, session_id) or []
            if isinstance(event, PlanApproved)
        ]
        assert [(event.plan, event.edited) for event in approvals] == [(edited, True)]

        await press_and_settle(pilot, "ctrl+n")
        await press_and_settle(pilot, "f2")
        sessions = app.screen
        assert isinstance(sessions, SessionsScreen)
        await wait_until(pilot, lambda: bool(sessions.sessions), 30)
        await press_and_settle(pilot, "enter")
        reopened = app.screen.query_one(PlanPane)
        assert reopened.draft is not None and reopened.draft.plan == edited
        assert "(edited)" in str(reopened.query_one("#plan-summary").render())
