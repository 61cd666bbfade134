"""The first citation opened (issue 15): Enter after `]` opens it as promptly as any later
one. The test failed before the fix."""

from __future__ import annotations

from pathlib import Path

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, count_restyles, press_and_settle
from tui.screens.citation_detail import CitationDetailScreen
from tui.widgets.report_pane import ReportPane


async def test_first_citation_opens_without_restyling_the_whole_app(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        report = app.screen.query_one(ReportPane)
        assert app.focused is report
        await pilot.press("]")
        await pilot.pause()
        assert report.current_citation == 1
        restyled = count_restyles(app)
        everything = len(list(app.research.walk_children(with_self=True)))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CitationDetailScreen)
        assert app.screen.number == 1
        # Loading the detail windows' styles at this point restyled every widget on screen
        # (the report's Markdown blocks included) before the window could show.
        assert restyled and max(restyled) < everything, (restyled, everything)
