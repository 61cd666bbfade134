"""One live run per session: a second run is refused, naming the run that holds it."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import run_lock
from engine.commands.run import EXIT_FAILED, EXIT_OK, EXIT_UNVERIFIED, run_headless
from engine.events import RunFailed, RunFinished
from engine.run.runner import drive, open_session
from engine.sessions_log import load_events, stored_lines
from tests.unit.engine.conftest import Scenario, make_settings
from tests.unit.engine.test_headless import parse

ROOT = Path(__file__).resolve().parents[3]

# Another process running the session: it holds the run lock from its first `running` row.
_HOLDER = """
import sys, time
from engine.config import settings_from_mapping
from engine.sessions import record_session
settings = settings_from_mapping({"DATA_DIR": sys.argv[1]})
record_session(settings, sys.argv[2], status="running")
print("holding", flush=True)
time.sleep(120)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen[str]]]:
    """A finished session of the scripted engine, then another process running it."""
    import asyncio

    settings = make_settings(tmp_path)
    scenario = Scenario()

    async def finished_session() -> str:
        async with open_session(settings, deps=scenario.deps(settings)) as session:
            async for _event in session.start("How do caches work?", mode="quick"):
                pass
            return session.session_id

    session_id = asyncio.run(finished_session())
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(settings.data_dir), session_id],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "holding"
        yield tmp_path, session_id, process
    finally:
        process.kill()
        process.wait(timeout=10)


async def test_a_second_resume_of_a_running_session_is_refused_naming_its_holder(
    holder: tuple[Path, str, subprocess.Popen[str]],
) -> None:
    tmp_path, session_id, process = holder
    settings = make_settings(tmp_path)
    scenario = Scenario()
    stored = stored_lines(settings, session_id)
    err = io.StringIO()
    code = await run_headless(
        settings,
        parse("--resume", session_id, "--yes"),
        deps=scenario.deps(settings),
        stderr=err,
        stdout=io.StringIO(),
    )
    assert code == EXIT_FAILED
    refusal = err.getvalue()
    assert f"session {session_id} is already running" in refusal
    assert f"process {process.pid} on {socket.gethostname()}" in refusal
    # Nothing ran: the log (the holder's) is as it was.
    assert stored_lines(settings, session_id) == stored

    # Once the holder is gone, the session resumes here.
    process.kill()
    process.wait(timeout=10)
    code = await run_headless(
        settings,
        parse("--resume", session_id, "--yes"),
        deps=scenario.deps(settings),
        stderr=io.StringIO(),
        stdout=(report := io.StringIO()),
    )
    assert code in (EXIT_OK, EXIT_UNVERIFIED) and report.getvalue()


async def test_two_drivers_in_one_process_do_not_run_one_session_at_once(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    scenario = Scenario()
    async with open_session(settings, deps=scenario.deps(settings)) as first:
        async for _event in first.start("How do caches work?", mode="quick"):
            pass
        async with open_session(settings, first.session_id, deps=scenario.deps(settings)) as other:
            seen: list[object] = []

            async def record(event: object) -> None:
                seen.append(event)

            # The first driver holds the session across the legs it chains.
            await first.claim()
            try:
                await drive(other, other.resume(), auto_approve=True, on_event=record)
            finally:
                first.release()
            assert len(seen) == 1 and isinstance(seen[0], RunFailed)
            assert "already running" in seen[0].error and not seen[0].resumable
            # The refusal is not stored in the session's log: that belongs to the holder.
            assert not any(
                isinstance(e, RunFailed) for e in load_events(settings, other.session_id) or []
            )
            resumed = [event async for event in other.resume()]
    assert isinstance(resumed[-1], RunFinished)
    assert not run_lock.is_alive(settings, first.session_id)
