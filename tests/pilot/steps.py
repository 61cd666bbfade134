"""Pilot steps shared by the app tests."""

from __future__ import annotations

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
