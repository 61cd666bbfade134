"""kill -9 at each phase boundary and inside the writer and verifier, then resume.

Whatever the point, the resumed session ends with its report, every piece of evidence of its
last checkpoint is in the event log once, and no event is stored twice. On SQLite one data
folder is killed and resumed; on PostgreSQL one worker (process, data folder) is killed and
another one, sharing only CHECKPOINT_URL, resumes it.

The default suite runs a representative few; `pytest -m crash_matrix` runs every point.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.citations.evidence_keys import record_key
from engine.events import EvidenceAdded, ReportReady, SessionStarted
from engine.sessions import get_session, load_report
from engine.sessions_log import stored_lines
from tests.e2e.crash_worker import settings_for
from tests.e2e.test_postgres_checkpoints import database  # noqa: F401 - a fixture
from tests.helpers.sample_index import seed_sample_index

WORKER = Path(__file__).with_name("crash_worker.py")
ROOT = Path(__file__).resolve().parents[2]
SESSION_ID = "crash-session"

# Phase boundaries, inside the writer and the verifier, and around the final checkpoint.
KILL_POINTS = [
    "phase:researching",
    "event:evidence_added",
    "writes:evidence_ledger",  # research results saved only as pending writes
    "phase:writing",
    "after:engine.nodes.report.reviewed_section",  # the writer, a section drafted of several
    "after:engine.nodes.verify.save_report",  # the verifier, its file written
    "event:report_ready",
    "checkpoint:verified_report",  # the final checkpoint, before the run's end is told
]
# What the default suite runs (each point costs two processes): research saved only in
# pending writes, and (across workers) inside the verifier, its report file on the killed one.
SQLITE_DEFAULT = {"writes:evidence_ledger"}
POSTGRES_DEFAULT = {"after:engine.nodes.verify.save_report"}


def _points(default: set[str]) -> list[Any]:
    return [
        pytest.param(point, marks=() if point in default else pytest.mark.crash_matrix)
        for point in KILL_POINTS
    ]


def _run(data_dir: Path, point: str, command: str, url: str | None) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CHECKPOINT_URL", None)
    if url:
        env["CHECKPOINT_URL"] = url
    done = subprocess.run(
        [sys.executable, str(WORKER), str(data_dir), SESSION_ID, point, command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    return done.returncode


def _final_state(settings: Any) -> Any:
    from engine.checkpoints import checkpointer
    from engine.graph import build_graph

    async def read() -> Any:
        async with checkpointer(settings) as saver:
            graph = build_graph(saver)
            return await graph.aget_state({"configurable": {"thread_id": SESSION_ID}})

    return asyncio.run(read())


# The events that state facts of the session, which the log holds once.
_FACTS = ("evidence_added", "report_ready", "run_finished", "run_failed")
# Tokens a resumed step spends again are spent again; a leg's start is its own.
_NOT_PROGRESS = ("usage_updated", "session_started")


def _told(line: str) -> str:
    """An event as the person reads it: without when it happened or where files are."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: strip(item)
                for key, item in value.items()
                if key != "at" and not key.endswith(("_at", "_seconds", "_path"))
            }
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return json.dumps(strip(json.loads(line)), sort_keys=True)


def progress_told(lines: list[str]) -> collections.Counter[str]:
    """How often the log tells each piece of progress (phases, units, tool calls, ...)."""
    return collections.Counter(
        _told(line) for line in lines if json.loads(line)["type"] not in _NOT_PROGRESS
    )


def problems_after_resume(settings: Any, uninterrupted: collections.Counter[str]) -> list[str]:
    """What is wrong with the session once resumed: nothing, when it is whole.

    `uninterrupted` is the progress a run of the same question that nobody killed told.
    """
    found: list[str] = []
    snapshot = _final_state(settings)
    values = snapshot.values or {}
    if snapshot.tasks or not values.get("verified_report"):
        found.append(f"the checkpoint is not finished (next {snapshot.next})")
    report = load_report(settings, SESSION_ID)
    if report is None:
        found.append("no report")
    elif report.report != values.get("verified_report"):
        found.append("the report differs from the checkpoint's")
    elif report.report_path:
        # A verification a kill cut short and resumed writes its file once, not a second beside.
        # (On PostgreSQL the report may be in the killed worker's folder: that one is read.)
        written = Path(report.report_path)
        kept = {written.name, written.stem + ".audit.json"}
        beside = written.parent.iterdir() if written.parent.is_dir() else iter(())
        orphans = sorted(
            path.name
            for path in beside
            if path.name.startswith(SESSION_ID) and path.name not in kept
        )
        if orphans:
            found.append(f"report files beside the report: {orphans}")
    info = get_session(settings, SESSION_ID)
    if info is None or info.status != "completed":
        found.append(f"listed as {info.status if info else 'missing'}")
    lines = [line for _number, line in stored_lines(settings, SESSION_ID)]
    from engine.events import parse_event

    events = [parse_event(line) for line in lines]
    without_time = [json.dumps({**json.loads(line), "at": None}) for line in lines]
    repeated = [
        line
        for line, count in collections.Counter(without_time).items()
        if count > 1 and json.loads(line)["type"] in _FACTS
    ]
    if repeated:
        found.append(f"events stored twice: {[json.loads(r)['type'] for r in repeated]}")
    # Progress the uninterrupted run told n times is told at most n times here: the step a
    # kill cut short runs again, but what it had already told is not stored again.
    retold = sorted(
        json.loads(told)["type"]
        for told, count in progress_told(lines).items()
        if count > uninterrupted[told] > 0
    )
    if retold:
        found.append(f"progress stored twice: {retold}")
    run_start = max(
        i for i, e in enumerate(events) if isinstance(e, SessionStarted) and not e.resumed
    )
    this_run = events[run_start:]
    logged = collections.Counter(
        record_key(e.record) for e in this_run if isinstance(e, EvidenceAdded)
    )
    if any(count > 1 for count in logged.values()):
        found.append("a piece of evidence announced twice")
    ledger = {record_key(item) for item in values.get("evidence_ledger") or []}
    missing = ledger - {record_key(e.record) for e in events if isinstance(e, EvidenceAdded)}
    if missing:
        found.append(f"{len(missing)} of {len(ledger)} ledger records not in the event log")
    reports = [e for e in this_run if isinstance(e, ReportReady)]
    if len(reports) != 1:
        found.append(f"{len(reports)} reports announced")
    return found


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> collections.Counter[str]:
    """The progress an uninterrupted run of the crash worker's question tells."""
    data_dir = seed_sample_index(tmp_path_factory.mktemp("uninterrupted"))
    assert _run(data_dir, "none", "start", None) == 0
    settings = settings_for(data_dir)
    return progress_told([line for _number, line in stored_lines(settings, SESSION_ID)])


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    return seed_sample_index(tmp_path / "a")


@pytest.mark.timeout(400)
@pytest.mark.parametrize("point", _points(SQLITE_DEFAULT))
def test_a_killed_sqlite_session_resumes_whole(
    point: str, seeded: Path, uninterrupted: collections.Counter[str]
) -> None:
    killed = _run(seeded, point, "start", None)
    assert killed == -signal.SIGKILL, f"the run was not killed at {point} (exit {killed})"
    assert _run(seeded, "none", "resume", None) == 0
    assert problems_after_resume(settings_for(seeded), uninterrupted) == []


@pytest.mark.timeout(400)
@pytest.mark.parametrize("point", _points(POSTGRES_DEFAULT))
def test_a_worker_killed_on_postgres_is_resumed_whole_by_another(
    point: str,
    tmp_path: Path,
    database: str,  # noqa: F811
    uninterrupted: collections.Counter[str],
) -> None:
    first, second = seed_sample_index(tmp_path / "a"), seed_sample_index(tmp_path / "b")
    killed = _run(first, point, "start", database)
    assert killed == -signal.SIGKILL, f"the run was not killed at {point} (exit {killed})"
    assert _run(second, "none", "resume", database) == 0
    assert problems_after_resume(settings_for(second, database), uninterrupted) == []
