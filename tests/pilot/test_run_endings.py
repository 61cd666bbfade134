"""What a run's end leaves on screen, and what the header keeps at 80 columns: no unit still
"running" once the run is over, the gate's final verdict as soon as research ends, the model
call's progress ahead of the gate while a call runs, and the ledger's unit column on screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from engine.events import ModelCallProgress, PhaseChanged, RunFailed, RuntimeProgress
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    SESSION_ID,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    progress,
    report_event,
    research_running,
    unit,
)
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_elapsed import header_text
from tests.pilot.test_walk_defects import start_research
from tests.pilot.test_walk_readouts import DeafDriver
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable


def unit_statuses(app: Any) -> dict[str, str]:
    table = app.screen.query_one(UnitsTable)
    return {key: str(table.get_cell(key, "status")) for key in ("u1", "u2", "u3")}


# ---- no unit is "running" after the run is over ----------------------------------------------


async def test_units_of_a_run_the_app_stopped_show_cancelled(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import tui.link.engine_link

    monkeypatch.setattr(tui.link.engine_link, "CANCEL_GRACE_SECONDS", 0.1)
    hold = Hold()
    driver = DeafDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_research(pilot, hold)
        assert unit_statuses(app) == {"u1": "completed", "u2": "running", "u3": "queued"}
        await pilot.press("ctrl+x")
        for _ in range(50):
            await pilot.pause(0.05)
            if not app.link.running:
                break
        await pilot.pause(0.1)
        assert not app.link.running
        assert unit_statuses(app) == {"u1": "completed", "u2": "cancelled", "u3": "cancelled"}
        assert app.research.view.units["u2"].status == "cancelled"


async def test_units_of_a_failed_run_show_stopped(tmp_path: Path) -> None:
    failure = RunFailed(error="The model endpoint did not answer.", session_id=SESSION_ID)
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), failure]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        assert unit_statuses(app) == {"u1": "completed", "u2": "stopped", "u3": "stopped"}


# ---- the gate's final verdict, as soon as research ends ---------------------------------------


async def test_the_final_gate_verdict_shows_when_research_ends(tmp_path: Path) -> None:
    hold = Hold()
    final = progress(unit(1), records=2, domains=1, status="retry").model_copy(
        update={"quality_gate_reason": "1 distinct source domain, need 3"}
    )
    writing = [PhaseChanged(phase="researching"), final, PhaseChanged(phase="writing"), hold]
    driver = ScriptedDriver({"start": [opening()], "review_plan": [writing]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause(0.2)
        line = header_text(app)
        assert "not passed (1 distinct source domain, need 3)" in line, line
        assert "not checked" not in line and "needs more" not in line, line
        hold.release.set()


# ---- the header at 80 columns -----------------------------------------------------------------


def long_gate() -> RuntimeProgress:
    return progress(unit(1), records=2, domains=1, status="retry").model_copy(
        update={
            "quality_gate_reason": (
                "2 evidence records, need 5; 2 records with sources, need 5; "
                "1 distinct source domain, need 3"
            )
        }
    )


def shown_line(app: Any) -> str:
    line = app.screen.query_one("#status-line", Static)
    rendered = line.render()
    plain = getattr(rendered, "plain", str(rendered)).rstrip()
    assert len(plain) <= line.size.width, plain
    return str(plain)


async def test_at_80_columns_a_running_model_call_and_the_gate_both_show(tmp_path: Path) -> None:
    hold = Hold()
    call = ModelCallProgress(
        role="researcher", state="generating", output_tokens=120, elapsed_seconds=35
    )
    steps = [PhaseChanged(phase="researching"), long_gate(), call, hold]
    driver = ScriptedDriver({"start": [opening()], "review_plan": [steps]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause(0.2)
        plain = shown_line(app)
        # During research the call says whose it is and for how long; the gate's counts stay.
        assert "researcher 35s" in plain and "2 of 5 records · 1 of 3 domains" in plain, plain
        assert "researching" in plain and "elapsed" in plain, plain
        # The call over, the gate has the room again (without its long reason).
        app.screen.query_one(StatusHeader).show_model_call("")
        await pilot.pause()
        plain = shown_line(app)
        assert "2 of 5 records · 1 of 3 domains" in plain, plain
        hold.release.set()


# ---- the ledger's unit column at 80 columns ---------------------------------------------------


async def test_the_ledger_shows_every_column_at_80_columns(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await press_and_settle(pilot, "f10")  # the report took the screen: the four panes
        table = app.screen.query_one(LedgerPane).table
        width = sum(column.get_render_width(table) for column in table.columns.values())
        assert width + table.styles.scrollbar_size_vertical <= table.size.width
        assert table.columns["unit"].width >= len("2.1")  # type: ignore[index]
        assert table.columns["claim"].width >= 12  # type: ignore[index]
        assert report_event().report  # the story ran to its report


async def test_at_80_columns_the_gate_keeps_its_counts_while_research_runs(
    tmp_path: Path,
) -> None:
    hold = Hold()
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_research(pilot, hold)
        plain = shown_line(app)
        # The undecided gate's words and the phase's detail give way; the counts stay.
        assert "3 of 5 records · 1 of 3 domains" in plain, plain
        assert "phase researching" in plain and "elapsed" in plain, plain
        hold.release.set()
