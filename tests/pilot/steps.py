"""Pilot steps shared by the app tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.widgets import Input

from tests.pilot.fakes import QUESTION, settle


async def ask(pilot: Any, question: str = QUESTION) -> None:
    pilot.app.screen.query_one("#question", Input).value = question
    pilot.app.screen.query_one("#question", Input).focus()
    await pilot.press("enter")
    await settle(pilot)


async def press_and_settle(pilot: Any, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(pilot)


async def wait_until(pilot: Any, condition: Callable[[], bool], seconds: float = 15.0) -> bool:
    """Whether `condition` came true within `seconds`, checked every 50 ms. A loaded machine
    gets the time it needs; a quiet one waits no longer than the condition takes."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await pilot.pause(0.05)
    return True


def count_restyles(app: Any) -> list[int]:
    """From now on, the size of every batch of widgets the app restyles, appended as it goes."""
    restyled: list[int] = []
    update_nodes = app.stylesheet.update_nodes

    def counted(nodes: Any, animate: bool = False) -> None:
        nodes = list(nodes)
        restyled.append(len(nodes))
        update_nodes(nodes, animate=animate)

    app.stylesheet.update_nodes = counted
    return restyled
