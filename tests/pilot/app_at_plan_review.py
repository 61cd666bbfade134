"""The app in a process of its own, holding a session paused at plan review.

    python app_at_plan_review.py DATA_DIR

Runs the real app (headless, real engine, offline model) against DATA_DIR, asks a deep
question, and once the plan waits for review prints `ready SESSION_ID` and keeps the session
on screen until a line (or end of input) arrives on stdin; then it quits the app.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from engine.config import settings_from_mapping
from tests.pilot.steps import ask
from tui.app import DeepResearchApp
from tui.link.engine_backend import EngineBackend
from tui.widgets.plan_pane import PlanPane

QUESTION = "How are asyncio tasks cancelled and how do timeouts use cancellation?"


async def main() -> None:
    data_dir = Path(sys.argv[1])
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    app = DeepResearchApp(EngineBackend(settings, cwd=data_dir))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, QUESTION)
        while not app.screen.query_one(PlanPane).reviewing:
            await pilot.pause(0.05)
        print("ready", app.research.view.session_id, flush=True)
        await asyncio.to_thread(sys.stdin.readline)


if __name__ == "__main__":
    asyncio.run(main())
