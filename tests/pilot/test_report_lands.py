"""The finished report is what a run is for: it is on screen when it lands, and it is
written on screen as the writer writes it."""

from __future__ import annotations

from pathlib import Path

from engine.events import OFFLINE_NOTICE, PhaseChanged, ReportDelta, RunFinished
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    SESSION_ID,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    report_event,
    research_running,
    settle,
)
from tests.pilot.steps import ask, press_and_settle
from tui.widgets.report_pane import ReportPane

OFFLINE_REPORT = f"> {OFFLINE_NOTICE}\n\n" + report_event().report


def offline_story() -> dict[str, list[list[object]]]:
    story = full_story()
    finished = story["review_plan"][0]
    story["review_plan"][0] = [
        report_event(report=OFFLINE_REPORT, offline_notice=OFFLINE_NOTICE)
        if getattr(step, "type", "") == "report_ready"
        else step
        for step in finished
    ]
    return story  # type: ignore[return-value]


def _screen_text(app: object) -> str:
    from textual.strip import Strip

    compositor = app.screen._compositor  # type: ignore[attr-defined]
    strips: list[Strip] = compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


async def test_at_80x24_the_report_takes_the_screen_and_its_first_lines_are_the_report(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(offline_story()))  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        pane = app.screen.query_one(ReportPane)
        assert app.screen.maximized is pane
        screen = _screen_text(app)
        assert "The event loop executes every callback" in screen
        assert OFFLINE_NOTICE not in screen.split("4 Report")[-1]
        status = pane.query_one("#report-status")
        assert status.size.height == 1


async def test_at_120x36_the_report_pane_starts_with_the_report_body(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(offline_story()))  # type: ignore[arg-type]
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        pane = app.screen.query_one(ReportPane)
        assert app.screen.maximized is None
        assert app.focused is pane
        region = pane.content_region
        lines = _screen_text(app).splitlines()[region.y : region.bottom]
        shown = "\n".join(line[region.x : region.right] for line in lines)
        assert "The event loop executes every callback" in shown
        assert "offline" in str(pane.border_subtitle)


async def test_the_report_is_written_on_screen_as_the_writer_writes_it(tmp_path: Path) -> None:
    hold = Hold()
    pieces = [
        ReportDelta(text="# How asyncio schedules\n\n## The event loop\n\n", start=True),
        ReportDelta(section="The event loop", text="The loop runs callbacks [1].\n\n"),
        ReportDelta(section="The event loop", text="## Tasks\n\nA task wraps a coroutine [2]."),
    ]
    driver = ScriptedDriver(
        {
            "start": [opening()],
            "review_plan": [
                [
                    *research_running(),
                    PhaseChanged(phase="writing"),
                    *pieces,
                    hold,
                    report_event(),
                    PhaseChanged(phase="done"),
                    RunFinished(session_id=SESSION_ID),
                ]
            ],
        }
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause()
        pane = app.screen.query_one(ReportPane)
        for _ in range(20):
            body = pane.body
            if body is not None and body.source.endswith("A task wraps a coroutine [2]."):
                break
            await pilot.pause(0.05)
        assert pane.body is not None
        assert "The loop runs callbacks [1]." in pane.body.source
        status = str(pane.query_one("#report-status").render())
        assert "Writing: The event loop" in status
        assert pane.report is None  # nothing to audit or export before verification
        hold.release.set()
        await settle(pilot)
        assert pane.report is not None
        assert "schedules it" in pane.body.source
        assert "cite-2" in pane.body.source  # citations are links once verified
