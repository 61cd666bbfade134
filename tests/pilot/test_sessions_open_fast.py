"""F2 and F3 open without restyling the whole app (issue 37: keystroke to feedback ≤ 100 ms;
F2 took about 285 ms, most of it restyling every widget as the screen's stylesheet loaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, count_restyles, press_and_settle
from tui.screens.sessions import SessionsScreen
from tui.screens.settings import SettingsScreen


@pytest.mark.parametrize(("key", "screen"), [("f2", SessionsScreen), ("f3", SettingsScreen)])
async def test_opening_a_screen_restyles_only_that_screen(
    tmp_path: Path, key: str, screen: type
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")  # a report on screen: many widgets to restyle
        restyled = count_restyles(app)
        everything = len(list(app.research.walk_children(with_self=True)))
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, screen)
        assert restyled and max(restyled) < everything, (restyled, everything)
