"""Keystroke to visible feedback in the app, timed with Textual's pilot.

Each measure presses one key in a running app (the scripted engine the pilot tests use, so
no model runs) and stops the clock when the screen shows the key's effect: ask (Enter →
"starting"), approve (y → the plan approved), cancel (ctrl+x → the run stopped), open (F2 →
the session chooser). The clock stops when the app's state says it is shown; the frame that
draws it follows within the app's refresh interval. `bench/tui.py` prints the table.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events

from tests.pilot.fakes import (
    QUESTION,
    FakeBackend,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    research_running,
)
from tui.app import DeepResearchApp

Condition = Callable[[Any], bool]


async def _until(pilot: Any, condition: Condition) -> None:
    # Polled on the app's own loop, 1 ms apart: a pilot pause would wait for every queued
    # message of the app, which is not what a person waits for.
    deadline = time.perf_counter() + 10
    while not condition(pilot.app):
        if time.perf_counter() > deadline:
            raise TimeoutError("no feedback within 10 s")
        await asyncio.sleep(0.001)


async def _timed(
    story: dict[str, list[list[Any]]],
    prepare: Callable[[Any], Awaitable[None]],
    key: str,
    shown: Condition,
) -> float:
    with tempfile.TemporaryDirectory() as folder:
        backend = FakeBackend(ScriptedDriver(story), env_path=Path(folder) / ".env")  # type: ignore[arg-type]
        app = DeepResearchApp(backend, export_dir=Path(folder))  # type: ignore[arg-type]
        async with app.run_test(size=(120, 36)) as pilot:
            await prepare(pilot)
            await pilot.pause()
            started = time.perf_counter()
            # As a terminal delivers a key: one event on the app's queue.
            app.post_message(events.Key(key, key if len(key) == 1 else None))
            await _until(pilot, shown)
            took = time.perf_counter() - started
            await pilot.pause()  # let what the key started settle before the app closes
            return took


def _phase(app: Any) -> str:
    return str(app.research.view.phase)


async def _typed(pilot: Any) -> None:
    field = pilot.app.screen.query_one("#question")
    field.value = QUESTION
    field.focus()
    await pilot.pause()


async def _at_review(pilot: Any) -> None:
    await _typed(pilot)
    await pilot.press("enter")
    await _until(pilot, lambda app: app.research.query_one("#plan").reviewing)


async def measure_keys(runs: int = 5) -> dict[str, float]:
    """Median milliseconds from key to feedback, per action."""
    hold = Hold()
    running_story = {"start": [opening()], "review_plan": [[*research_running(), hold]]}

    async def at_running(pilot: Any) -> None:
        await _at_review(pilot)
        await pilot.press("y")
        await _until(pilot, lambda app: _phase(app) == "researching")

    cases: dict[str, tuple[Any, Callable[[Any], Awaitable[None]], str, Condition]] = {
        "ask (Enter → starting)": (
            {"start": [opening()]},
            _typed,
            "enter",
            lambda app: _phase(app) == "starting" or bool(app.research.view.session_id),
        ),
        "approve (y → plan approved)": (
            full_story(),
            _at_review,
            "y",
            lambda app: not app.research.query_one("#plan").reviewing,
        ),
        "cancel (ctrl+x → run stopped)": (
            running_story,
            at_running,
            "ctrl+x",
            lambda app: _phase(app) in {"cancelled", "stopped"},
        ),
        "open (F2 → session chooser)": (
            {},
            lambda pilot: pilot.pause(),
            "f2",
            lambda app: (
                type(app.screen).__name__ == "SessionsScreen"
                and bool(app.screen.query("SessionsTable"))
            ),
        ),
    }
    results: dict[str, float] = {}
    for name, (story, prepare, key, shown) in cases.items():
        times = []
        for _ in range(runs):
            fresh = {k: [list(run) for run in v] for k, v in story.items()} if story else {}
            times.append(await _timed(fresh, prepare, key, shown))
        results[name] = statistics.median(times) * 1000
    return results
