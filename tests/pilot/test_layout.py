"""What fits on screen: table columns inside their panes, the plan editor at 80×24, the header
before any session."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from engine.config import settings_from_mapping
from engine.events import ResearchUnitSummary
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, settle
from tests.pilot.steps import ask, press_and_settle, wait_until
from tui.app import DeepResearchApp
from tui.link.engine_backend import EngineBackend
from tui.widgets.ledger_pane import LedgerPane, LedgerTable
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable

RAW_TOPIC = (
    "Research track: Cancellation of asyncio tasks\n"
    "Section: Cancelling tasks\n"
    "Queries: task cancel | CancelledError"
)


def columns_fit(table: DataTable[object]) -> bool:
    used = sum(column.get_render_width(table) for column in table.columns.values())
    return used <= table.size.width


@pytest.mark.parametrize("size", [(120, 36), (160, 48)])
async def test_table_columns_fit_their_panes(tmp_path: Path, size: tuple[int, int]) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=size) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await settle(pilot)
        units = app.screen.query_one(UnitsTable)
        ledger = app.screen.query_one(LedgerPane).query_one(DataTable)
        assert columns_fit(units), [c.width for c in units.columns.values()]
        assert columns_fit(ledger), [c.width for c in ledger.columns.values()]
        # Every column of both tables is on screen: none is pushed past the pane's edge.
        assert units.virtual_size.width <= units.size.width
        assert ledger.virtual_size.width <= ledger.size.width
        # The flexible columns grow with the terminal.
        assert units.columns["topic"].width >= 16  # type: ignore[index]
        assert ledger.columns["claim"].width >= 16  # type: ignore[index]


def fitted(app: DeepResearchApp) -> bool:
    """Whether the ledger table is mounted and its columns take its whole width (less the
    scrollbar's room): the claim has been given what the other columns leave."""
    tables = app.screen.query(LedgerTable)
    if not tables or not tables.first().size.width:
        return False
    table = tables.first()
    used = sum(column.get_render_width(table) for column in table.columns.values())
    return used == table.size.width - table.styles.scrollbar_size_vertical


async def test_wider_terminal_gives_the_claim_more_room(tmp_path: Path) -> None:
    widths: list[int] = []
    for size in ((120, 36), (180, 40)):
        app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
        async with app.run_test(size=size) as pilot:
            # The table mounts after the first frame and fits its columns when sized.
            assert await wait_until(pilot, lambda: fitted(app)), size
            table = app.screen.query_one(LedgerTable)
            widths.append(table.columns["claim"].width)  # type: ignore[index]
    assert widths[1] > widths[0]


async def test_unit_topic_shows_the_track_title_only(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(UnitsTable)
        table.show_unit(ResearchUnitSummary(id="unit-1", topic=RAW_TOPIC, status="running"))
        table.show_unit(
            ResearchUnitSummary(
                id="unit-2", topic=RAW_TOPIC, status="failed", failure_reason="search timed out"
            )
        )
        await pilot.pause()
        assert str(table.get_cell("unit-1", "topic")) == "Cancellation of asyncio tasks"
        failed = str(table.get_cell("unit-2", "topic"))
        assert failed.startswith("search timed out")
        assert "Research track" not in failed and "Queries" not in failed


async def test_plan_editor_inputs_visible_at_80x24(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        screen_region = app.screen.region
        for name in ("title", "section", "queries"):
            field = app.screen.query_one(f"#{name}", Input)
            region = field.region
            assert region.height >= 1 and region.width >= 20, (name, region)
            assert screen_region.contains_region(region), (name, region)
            # Not hidden under another widget: the compositor shows this input there.
            assert app.screen.get_widget_at(region.x + 1, region.y)[0] is field, name
        await pilot.press("escape")
        await pilot.pause()
        # At 80×24 the plan keeps the whole grid for review; approving brings the panes back.
        assert app.screen.maximized is app.screen.query_one("#plan")
        await press_and_settle(pilot, "y")
        # The plan gives the screen back; the finished report takes it.
        assert app.screen.maximized is app.screen.query_one("#report")
        assert app.screen.query_one(UnitsTable).display


async def test_header_before_any_session_is_idle_with_offline_badge(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), offline=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        header = app.screen.query_one(StatusHeader)
        assert "phase idle" in header.status_text().plain
        assert header.has_class("-offline")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert header.has_class("-offline"), "a new session keeps the settings' badge"


async def test_header_shows_no_badge_when_a_model_is_configured(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), offline=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        header = app.screen.query_one(StatusHeader)
        assert "phase idle" in header.status_text().plain
        assert not header.has_class("-offline")


@pytest.mark.parametrize(
    ("values", "offline"),
    [({}, True), ({"OPENAI_API_KEY": "sk-test-not-real"}, False)],
    ids=["nothing-configured", "key-configured"],
)
async def test_real_settings_decide_the_idle_badge(
    tmp_path: Path, values: dict[str, str], offline: bool
) -> None:
    # A folder of one note: the app indexes it while settling, which the sample corpus would
    # make take seconds.
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "note.md").write_text("# Note\n\nOne line.\n", encoding="utf-8")
    mapping = {"DATA_DIR": str(tmp_path / "data"), "DOCUMENTS_PATH": str(documents), **values}
    settings = settings_from_mapping(mapping)
    app = DeepResearchApp(EngineBackend(settings, cwd=tmp_path), export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(StatusHeader).has_class("-offline") is offline


async def test_header_shows_document_indexing_while_it_runs(tmp_path: Path) -> None:
    reached, release = threading.Event(), threading.Event()

    def indexing(progress: Callable[[int, int], None]) -> None:
        progress(1, 3)
        reached.set()
        release.wait(10)
        progress(3, 3)

    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), indexing=indexing)
    async with app.run_test(size=(120, 36)) as pilot:
        header = app.screen.query_one(StatusHeader)
        assert await wait_until(
            pilot,
            lambda: reached.is_set() and "indexing documents 1/3" in header.status_text().plain,
        ), header.status_text().plain
        release.set()
        await app.workers.wait_for_complete()
        # The last progress report reaches the header as a message after the worker ends.
        assert await wait_until(pilot, lambda: "indexing" not in header.status_text().plain)


async def test_quitting_during_indexing_stops_it_at_the_next_file(tmp_path: Path) -> None:
    reached, stopped = threading.Event(), threading.Event()

    def indexing(progress: Callable[[int, int], None]) -> None:
        progress(1, 1000)
        reached.set()
        try:
            for done in range(2, 1000):
                time.sleep(0.01)
                progress(done, 1000)
        except Exception:
            stopped.set()
            raise

    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), indexing=indexing)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await wait_until(pilot, reached.is_set)
    assert stopped.wait(5), "indexing went on after the app closed"


async def test_header_says_what_a_long_model_call_is_doing_until_it_ends(tmp_path: Path) -> None:
    from engine.events import ModelCallProgress, PhaseChanged
    from tests.pilot.fakes import opening

    planning = [e for e in opening() if not isinstance(e, PhaseChanged) or e.phase != "plan_review"]
    writing = ModelCallProgress(
        role="planner",
        endpoint="127.0.0.1:8081",
        state="generating",
        output_tokens=120,
        elapsed_seconds=35,
    )
    story = {"start": [[*planning[:-1], writing]]}
    app, _ = make_app(tmp_path, ScriptedDriver(story), offline=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        header = app.screen.query_one(StatusHeader)
        assert "planner model: writing… 120 tokens, 35s" in header.status_text().plain
        assert "127.0.0.1" not in header.status_text().plain  # no room for the endpoint
        header.show_model_call("")
        assert "writing…" not in header.status_text().plain


async def test_a_quick_question_leaves_no_stale_planning_status(tmp_path: Path) -> None:
    from rich.text import Text
    from textual.widgets import Static

    from engine.events import PhaseChanged, RouteDecided, RunFinished, SessionStarted
    from tests.pilot.fakes import QUESTION, SESSION_ID, report_event
    from tui.widgets.plan_pane import PlanPane

    quick = [
        SessionStarted(session_id=SESSION_ID, question=QUESTION, offline=True),
        PhaseChanged(phase="routing"),
        RouteDecided(mode="quick", reason="a single fact"),
        PhaseChanged(phase="quick_research"),
        report_event(mode="quick"),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID),
    ]
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [quick]}))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        summary = app.screen.query_one(PlanPane).query_one("#plan-summary", Static).render()
        text = summary.plain if isinstance(summary, Text) else str(summary)
        assert "quick question is answered directly" in text
        assert "choosing" not in text
