"""The API gives out a session's id once the session exists, and follows a live session's
events whichever worker runs it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.api.legs import start_leg
from engine.api.runs import SessionRuns
from engine.api.stream import session_events
from engine.sessions import get_session
from tests.unit.engine.conftest import Scenario, make_settings

ROOT = Path(__file__).resolve().parents[3]


async def test_a_launched_session_is_listed_before_its_id_is_given_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.sessions

    settings = make_settings(tmp_path)
    write = engine.sessions._write_row

    def slow_index(*args: object, **kwargs: object) -> None:
        time.sleep(0.3)  # an index a network away
        write(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.sessions, "_write_row", slow_index)
    runs = SessionRuns(settings, Scenario().deps(settings))
    await runs.start()
    try:
        session_id = await runs.launch(None, start_leg("How do caches work?", "quick"))
        info = await asyncio.to_thread(get_session, settings, session_id)
        assert info is not None and info.question == "How do caches work?"
        await runs.finished(session_id)
    finally:
        await runs.close()


# Another worker running the session: it holds the run lock, writes one event, then ends.
_WORKER = """
import sys, time
from engine.config import settings_from_mapping
from engine.events import PhaseChanged, event_to_json
from engine.sessions import record_session
from engine.sessions_log import events_path
settings = settings_from_mapping({"DATA_DIR": sys.argv[1]})
record_session(settings, sys.argv[2], status="awaiting_plan_review", question="q")
record_session(settings, sys.argv[2], status="running")
print("running", flush=True)
time.sleep(1.0)
path = events_path(settings, sys.argv[2])
path.parent.mkdir(parents=True, exist_ok=True)
with path.open("a") as log:
    log.write(event_to_json(PhaseChanged(phase="researching")) + "\\n")
time.sleep(0.5)
"""


class _NoPulses:
    async def wait_for_pulse(self, session_id: str, seconds: float) -> None:
        await asyncio.sleep(seconds)


@pytest.mark.timeout(60)
async def test_a_stream_follows_a_session_another_worker_runs(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    worker = subprocess.Popen(
        [sys.executable, "-c", _WORKER, str(settings.data_dir), "s-elsewhere"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        assert await asyncio.to_thread(worker.stdout.readline) == "running\n"

        async def not_here() -> bool:
            return False  # this worker runs nothing of it

        frames = [
            frame
            async for frame in session_events(
                settings, "s-elsewhere", _NoPulses(), still_running=not_here
            )
        ]
    finally:
        worker.kill()
        worker.wait(timeout=10)
    assert len(frames) == 1 and frames[0].event == "phase_changed"
