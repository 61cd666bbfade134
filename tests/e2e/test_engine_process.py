"""`deepresearch serve` runs its engine in child processes that live and die with it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.api.engine_process import ENGINE_NICENESS, ProcessRuns
from engine.api.legs import RESUME_LEG, start_leg
from engine.api.runs import SessionRuns
from engine.config import settings_from_mapping
from engine.sessions import get_session
from tests.fixtures.exa_server import ExaServer
from tests.fixtures.servers import local_settings
from tests.fixtures.web_server import WebServer

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUESTIONS = [
    "What is the default maxsize of asyncio.Queue?",
    "How are asyncio tasks cancelled?",
    "What does functools.lru_cache do?",
    "How does json.dumps handle non-ASCII characters?",
]


async def _until(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_leg_runs_in_the_engine_process_and_its_pulses_reach_the_server(
    tmp_path: Path,
) -> None:
    settings = local_settings(tmp_path, DOCS)
    runs = ProcessRuns(settings)
    await runs.start()
    (engine,) = runs._engines
    assert engine is not None
    try:
        assert runs.pids == [engine.process.pid] and engine.process.pid != os.getpid()
        # Research yields the cores to the server's own requests.
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, engine.process.pid) == own + ENGINE_NICENESS
        session_id = await runs.launch(
            None, start_leg("What is the default maxsize of asyncio.Queue?", "quick")
        )
        await runs.wait_for_pulse(session_id, 30)  # woken by the leg's first event
        await runs.finished(session_id)
        for _ in range(100):  # the settled note follows the last event
            if not runs.busy(session_id):
                break
            await asyncio.sleep(0.05)
        assert not runs.busy(session_id)
        assert await runs.stage(session_id) == "finished"
        info = get_session(settings, session_id)
        assert info is not None and info.status == "completed"
    finally:
        await runs.close()
    assert not engine.process.is_alive()


async def test_the_engine_process_exits_when_the_server_is_gone(tmp_path: Path) -> None:
    runs = ProcessRuns(local_settings(tmp_path, DOCS))
    await runs.start()
    (engine,) = runs._engines
    assert engine is not None
    process = engine.process
    runs._closing = True  # no replacement: this test is about the process that is left alone
    # As a killed server's end of the pipe closes: shut down, since a plain close would wait
    # for this process's own reader, blocked in a read on the same socket.
    end = socket.socket(fileno=os.dup(engine.pipe.fileno()))
    end.shutdown(socket.SHUT_RDWR)
    end.close()
    await asyncio.to_thread(process.join, 20)
    assert not process.is_alive()
    assert process.exitcode == 1


async def test_sessions_run_in_several_engine_processes_and_a_killed_one_is_replaced(
    tmp_path: Path,
) -> None:
    """Two sessions at once run in two processes; cancel reaches the one running its
    session; a process killed mid-run is replaced and its session resumes elsewhere."""
    with WebServer() as web, ExaServer(web_port=web.port) as exa:
        settings = settings_from_mapping(
            {
                "SEARCH_PROVIDER": "exa",
                "EXA_API_KEY": exa.api_key,
                "EXA_BASE_URL": exa.base_url,
                "FETCH_ALLOWED_HOSTS": web.allowed_host,
                "DATA_DIR": str(tmp_path),
            }
        )
        exa.hang()  # every search waits: both sessions stay mid-research
        runs = ProcessRuns(settings, processes=2)
        await runs.start()
        try:
            assert len(set(runs.pids)) == 2
            # Deep sessions: planning searches first, and waits on them.
            first = await runs.launch(None, start_leg(QUESTIONS[0], "deep"), auto_approve=True)
            second = await runs.launch(None, start_leg(QUESTIONS[1], "deep"), auto_approve=True)
            await _until(lambda: len(exa.requests) >= 2)
            assert runs.busy(first) and runs.busy(second)
            running_first, running_second = runs.running_in(first), runs.running_in(second)
            assert running_first in runs.pids and running_second in runs.pids
            assert running_first != running_second

            # Cancel goes to the process running the session (the other one runs none).
            assert await runs.cancel(first)
            await runs.finished(first)
            await _until(lambda: not runs.busy(first))
            first_info = get_session(settings, first)
            assert first_info is not None and first_info.status == "interrupted"
            assert runs.busy(second)

            # Kill the process running the second session: noticed, replaced, resumable.
            assert running_second is not None
            os.kill(running_second, signal.SIGKILL)
            await _until(lambda: not runs.busy(second))
            await _until(lambda: len(runs.pids) == 2 and running_second not in runs.pids, 120)
            info = get_session(settings, second)
            assert info is not None and info.status == "interrupted"
            exa.clear_faults()
            assert await runs.launch(second, RESUME_LEG, auto_approve=True) == second
            assert runs.running_in(second) in runs.pids
            await runs.finished(second)
            await _until(lambda: not runs.busy(second))
            info = get_session(settings, second)
            assert info is not None and info.status == "completed"
        finally:
            exa.clear_faults()
            await runs.close()


async def test_a_second_leg_of_a_running_session_is_refused_by_the_pool(tmp_path: Path) -> None:
    from engine.api.runs import SessionBusy

    settings = local_settings(tmp_path, DOCS)
    runs = ProcessRuns(settings, processes=2)
    await runs.start()
    try:
        session_id = await runs.launch(None, start_leg(QUESTIONS[0], "quick"), auto_approve=True)
        refused = False
        try:
            await runs.launch(session_id, RESUME_LEG)
        except SessionBusy:
            refused = True
        await runs.finished(session_id)
        # Either refused while it ran, or (a very fast run) resumed after it had ended.
        assert refused or runs.running_in(session_id) is None
    finally:
        await runs.close()


async def test_a_session_goes_on_only_once_those_launched_with_it_have_announced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions launched together, the second slow to write its first row: the first
    one's graph waits until the second has announced itself, so a burst of new sessions gets
    its first events out before the engine takes up any session's research."""
    import engine.run.runner
    from engine.api import runs as runs_module

    monkeypatch.setattr(runs_module, "ANNOUNCE_WAIT_SECONDS", 30.0)
    slow_question = QUESTIONS[1]
    record = engine.run.runner.record_session

    def slow_to_start(settings: Any, session_id: str, **row: Any) -> None:
        if row.get("question") == slow_question:
            time.sleep(1.5)  # in a thread of the engine, as every index write
        record(settings, session_id, **row)

    monkeypatch.setattr(engine.run.runner, "record_session", slow_to_start)
    pulses: list[str] = []
    runs = SessionRuns(
        local_settings(tmp_path, DOCS),
        notify=lambda kind, sid: pulses.append(sid) if kind == "pulse" else None,
    )
    await runs.start()
    try:
        fast, slow = await asyncio.gather(
            runs.launch(None, start_leg(QUESTIONS[0], "quick")),
            runs.launch(None, start_leg(slow_question, "quick")),
        )
        for session_id in (fast, slow):
            await runs.finished(session_id)
    finally:
        await runs.close()
    fast_pulses = [i for i, sid in enumerate(pulses) if sid == fast]
    assert len(fast_pulses) > 2
    # The fast one's first event came first; its next waited for the slow one's first.
    assert fast_pulses[0] < pulses.index(slow) < fast_pulses[1]
