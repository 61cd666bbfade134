"""At 80 columns the question field keeps room for its prompt and the asked question: the
mode toggle beside it drops its label and "(your choice)", which a wide screen still shows."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from engine.events import RouteDecided
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, settle
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.question_bar import QuestionBar

FOLLOW_UP = "Ask a follow-up and press Enter"


async def _shown(tmp_path: Path, width: int) -> tuple[int, str]:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(width, 24)) as pilot:
        app.screen.query_one(QuestionBar).show_asked("How does autovacuum decide?")
        toggle = app.screen.query_one(ModeToggle)
        toggle.show_route(RouteDecided(mode="deep", reason="chosen", overridden=True))
        await settle(pilot)
        field = app.screen.query_one("#question", Input)
        assert field.placeholder == FOLLOW_UP
        return field.content_size.width, toggle.render().plain


async def test_at_80_columns_the_follow_up_prompt_fits_beside_the_route(tmp_path: Path) -> None:
    room, toggle = await _shown(tmp_path, 80)
    assert room >= len(FOLLOW_UP) and "→ deep" in toggle and "your choice" not in toggle


async def test_a_wide_screen_says_whose_choice_the_route_was(tmp_path: Path) -> None:
    _room, toggle = await _shown(tmp_path, 160)
    assert "→ deep (your choice)" in toggle and toggle.startswith("mode")
