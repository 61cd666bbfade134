"""A session in its own process, for the resume-across-processes test.

    python session_worker.py start DATA_DIR EVENTS_LOG STARTS_LOG   (slow beta researcher)
    python session_worker.py resume DATA_DIR EVENTS_LOG STARTS_LOG SESSION_ID

Every researcher start is appended to STARTS_LOG, every event to EVENTS_LOG.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from engine.events import event_to_json
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from tests.unit.engine.conftest import Scenario, make_settings

SESSION_ID = "resume-test-session"


async def main() -> None:
    command, data_dir, events_log, starts_log = sys.argv[1:5]
    settings = make_settings(
        Path(data_dir),
        min_evidence_records=2,
        min_source_domains=2,
        max_concurrent_research_units=2,
    )
    slow = {"beta": 60.0} if command == "start" else {}
    scenario = Scenario(tracks=3, researcher_delay=slow)

    def started(word: str) -> None:
        with open(starts_log, "a") as handle:
            handle.write(word + "\n")

    scenario.on_researcher_start = started
    with open(events_log, "a") as log:
        async with open_session(settings, SESSION_ID, deps=scenario.deps(settings)) as session:
            if command == "start":
                async for event in session.start("Compare alpha and beta", mode="deep"):
                    log.write(event_to_json(event) + "\n")
                    log.flush()
                stream = session.review_plan(PlanDecision(action="approve"))
            else:
                stream = session.resume()
            async for event in stream:
                log.write(event_to_json(event) + "\n")
                log.flush()


if __name__ == "__main__":
    asyncio.run(main())
