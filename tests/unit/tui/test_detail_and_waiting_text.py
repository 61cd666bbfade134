"""A unit's tool calls counted once each; the report pane after a stop says so."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from engine.events import ToolCalled
from tui.screens.unit_detail import latest_per_call
from tui.widgets.report_pane import ReportPane


def test_a_call_reported_started_then_finished_is_one_call() -> None:
    calls = [
        ToolCalled(tool="search_web", call_id="c1", status="started"),
        ToolCalled(tool="fetch_url", call_id="c2", status="started"),
        ToolCalled(tool="search_web", call_id="c1", status="succeeded", result_summary="4"),
        ToolCalled(tool="fetch_url", call_id="c2", status="failed", error="timeout"),
        ToolCalled(tool="think_tool", status="succeeded"),
    ]
    shown = latest_per_call(calls)
    assert [(c.tool, c.status) for c in shown] == [
        ("search_web", "succeeded"),
        ("fetch_url", "failed"),
        ("think_tool", "succeeded"),
    ]


async def test_the_report_pane_says_a_stopped_run_wrote_no_report() -> None:
    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ReportPane()

    async with Host().run_test() as pilot:
        pane = pilot.app.query_one(ReportPane)
        pane.show_phase("cancelled")
        await pilot.pause()
        text = str(pane.query_one("#report-status", Static).render())
        assert "Stopped before a report was written" in text


async def test_a_review_note_goes_when_the_review_ends() -> None:
    from tests.pilot.fakes import sample_plan
    from tui.widgets.plan_pane import PlanPane

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield PlanPane()

    async with Host().run_test() as pilot:
        pane = pilot.app.query_one(PlanPane)
        pane.show_plan(
            sample_plan(), revision=2, reviewing=True, note="Revised with your feedback."
        )
        await pilot.pause()
        notice = pane.query_one("#plan-notice", Static)
        assert "Revised" in str(notice.render())
        pane.end_review("approved")
        await pilot.pause()
        assert str(notice.render()).strip() == ""
