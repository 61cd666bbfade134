"""With CHECKPOINT_URL the session index is in PostgreSQL: every worker lists the same sessions,
and a run on one machine is seen running from another until its process dies."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.commands.run import EXIT_OK, run_headless
from engine.protocol import SessionNotDeleted
from engine.sessions import adelete_session, get_session, list_sessions, record_session
from tests.e2e.test_postgres_checkpoints import QUESTION, database, settings_for
from tests.unit.engine.test_headless import parse

__all__ = ["database"]  # the fixture, used by name
SESSION = "20261124-000000-abc123"

HOLDER = """
import sys, time
from engine.config import settings_from_mapping
from engine.sessions import record_session
settings = settings_from_mapping({"DATA_DIR": sys.argv[1], "CHECKPOINT_URL": sys.argv[2]})
record_session(settings, sys.argv[3], status="running", question="held", mode="deep")
print("holding", flush=True)
time.sleep(120)
"""


async def test_workers_with_separate_data_folders_list_the_same_sessions(
    tmp_path: Path, database: str
) -> None:
    first = settings_for(tmp_path / "a", database)
    second = settings_for(tmp_path / "b", database)
    code = await run_headless(
        first,
        parse(QUESTION, "--mode", "quick"),
        stderr=io.StringIO(),
        stdout=io.StringIO(),
    )
    assert code == EXIT_OK
    listed = list_sessions(second)
    assert [info.question for info in listed] == [QUESTION]
    assert listed[0].status == "completed"
    assert not (tmp_path / "b" / "sessions-index.sqlite").exists()


async def test_a_run_on_another_machine_is_running_until_its_process_dies(
    tmp_path: Path, database: str
) -> None:
    worker = settings_for(tmp_path / "worker", database)
    here = settings_for(tmp_path / "here", database)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            HOLDER,
            str(tmp_path / "worker"),
            database,
            SESSION,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        info = get_session(here, SESSION)
        assert info is not None and info.status == "running"
        with pytest.raises(SessionNotDeleted, match="is running"):
            await adelete_session(here, SESSION)
    finally:
        holder.kill()
        holder.wait()
    for _ in range(50):  # the server notices the dropped connection
        info = get_session(here, SESSION)
        if info is not None and info.status == "interrupted":
            break
        time.sleep(0.1)
    assert info is not None and info.status == "interrupted"
    record_session(worker, SESSION, status="failed")
    await adelete_session(here, SESSION)
    assert get_session(worker, SESSION) is None


def test_api_workers_on_separate_machines_share_events_and_reports(
    tmp_path: Path, database: str
) -> None:
    import httpx

    from tests.e2e.test_api import DEEP, sse
    from tests.helpers.api_server import api_server

    with (
        api_server(settings_for(tmp_path / "a", database)) as worker_a,
        api_server(settings_for(tmp_path / "b", database)) as worker_b,
    ):
        with httpx.stream("POST", f"{worker_a}/v1/research", json=DEEP, timeout=60) as response:
            session_id = response.headers["x-session-id"]
            first = list(sse(response))
        assert first[-1][1] == "plan_proposed"
        approved = httpx.post(
            f"{worker_b}/v1/sessions/{session_id}/plan", json={"action": "approve"}, timeout=30
        )
        assert approved.status_code == 202
        url = f"{worker_b}/v1/sessions/{session_id}/events"
        headers = {"Last-Event-ID": str(first[-1][0])}
        with httpx.stream("GET", url, headers=headers, timeout=120) as response:
            rest = list(sse(response))
        ids = [number for number, _, _ in first + rest]
        assert ids == list(range(1, len(ids) + 1))  # one numbering across both workers
        assert rest[-1][1] == "run_finished"
        # Worker A never saw the research, yet serves its report and lists it finished.
        report = httpx.get(f"{worker_a}/v1/sessions/{session_id}/report").json()
        assert report["type"] == "report_ready" and report["kept_citations"]
        listed = httpx.get(f"{worker_a}/v1/sessions").json()
        assert [(s["session_id"], s["status"]) for s in listed] == [(session_id, "completed")]
    assert not (tmp_path / "a" / "session-events").exists()


async def test_a_resume_on_another_worker_is_refused_naming_the_worker_that_runs_it(
    tmp_path: Path, database: str
) -> None:
    import socket

    from engine.events import RunFailed
    from engine.run.runner import open_session

    here = settings_for(tmp_path / "here", database)
    # A worker that names itself, as a door of the engine may.
    named = HOLDER.replace(
        "import sys, time",
        "import sys, time\nfrom engine import run_lock\nrun_lock.door = 'worker-a'",
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", named, str(tmp_path / "worker"), database, SESSION],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        # The data folders differ: only PostgreSQL knows who runs the session.
        async with open_session(here, SESSION) as session:
            events = [event async for event in session.resume()]
    finally:
        holder.kill()
        holder.wait()
    assert len(events) == 1 and isinstance(events[0], RunFailed)
    refusal = events[0].error
    assert f"session {SESSION} is already running" in refusal
    assert f"process {holder.pid} on {socket.gethostname()}, worker-a" in refusal
    assert not events[0].resumable
