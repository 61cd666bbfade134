"""`deepresearch serve` runs its engine in a child process that lives and dies with it."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

from engine.api.engine_process import ProcessRuns
from engine.api.legs import start_leg
from engine.sessions import get_session
from tests.fixtures.servers import local_settings

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"


async def test_a_leg_runs_in_the_engine_process_and_its_pulses_reach_the_server(
    tmp_path: Path,
) -> None:
    settings = local_settings(tmp_path, DOCS)
    runs = ProcessRuns(settings)
    await runs.start()
    try:
        assert runs._process.pid != os.getpid()
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
    assert not runs._process.is_alive()


async def test_the_engine_process_exits_when_the_server_is_gone(tmp_path: Path) -> None:
    runs = ProcessRuns(local_settings(tmp_path, DOCS))
    await runs.start()
    process = runs._process
    # As a killed server's end of the pipe closes: shut down, since a plain close would wait
    # for this process's own reader, blocked in a read on the same socket.
    end = socket.socket(fileno=os.dup(runs._pipe.fileno()))
    end.shutdown(socket.SHUT_RDWR)
    end.close()
    await asyncio.to_thread(process.join, 20)
    assert not process.is_alive()
    assert process.exitcode == 1
