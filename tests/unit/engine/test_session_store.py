"""Stored session events and the sessions command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine.events import EvidenceAdded, PlanProposed, ReportReady
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import load_report, record_session
from engine.sessions_log import load_events
from tests.unit.engine.conftest import Scenario, make_settings

ROOT = Path(__file__).resolve().parents[3]


async def collect(stream):
    return [e async for e in stream]


async def test_a_finished_session_is_stored_as_its_typed_events(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        live = await collect(session.start("Compare alpha and beta", mode="deep"))
        live += await collect(session.review_plan(PlanDecision(action="approve")))
        session_id = session.session_id
    stored = load_events(settings, session_id)
    assert stored is not None
    for kind in (PlanProposed, EvidenceAdded, ReportReady):
        assert [e for e in stored if isinstance(e, kind)] == [
            e for e in live if isinstance(e, kind)
        ]
    report = next(e for e in stored if isinstance(e, ReportReady))
    assert report.verification_status == "verified" and report.kept_citations


def test_a_report_saved_before_event_logs_is_read_back_typed_with_its_audit(
    tmp_path: Path,
) -> None:
    settings = make_settings(tmp_path)
    assert load_report(settings, "20250101-000000-abcdef") is None
    settings.reports_dir.mkdir(parents=True)
    report = settings.reports_dir / "20250101-000000-abcdef.md"
    report.write_text("Alpha is fast [1].\n\n## Sources\n[1] https://a.example.org/1\n")
    audit = {
        "mode": "quick",
        "verification_status": "verified",
        "verification_reason": "",
        "kept_citations": [{"number": 1, "source": "https://a.example.org/1"}],
        "removed_citations": [{"number": 2, "source": "https://x.example", "reason": "gone"}],
    }
    report.with_suffix(".audit.json").write_text(json.dumps(audit))
    loaded = load_report(settings, "20250101-000000-abcdef")
    assert isinstance(loaded, ReportReady)
    assert loaded.report == report.read_text()
    assert (loaded.mode, loaded.verification_status) == ("quick", "verified")
    assert [c.source for c in loaded.kept_citations] == ["https://a.example.org/1"]
    assert [c.reason for c in loaded.removed_citations] == ["gone"]
    assert loaded.report_path == str(report)


def test_sessions_piped_into_head_ends_without_a_traceback(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    # About 150 KB of listing: well past a pipe's 64 KB, so the list is still being written
    # when the reader goes away.
    for number in range(1000):
        record_session(settings, f"s-{number:05d}", status="completed", question="q " * 100)
    env_file = tmp_path / "empty.env"
    env_file.write_text("", encoding="utf-8")
    env = {**os.environ, "DATA_DIR": str(settings.data_dir), "DEEPRESEARCH_ENV_FILE": str(env_file)}
    reader = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "sessions"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert reader.stdout is not None
    assert reader.stdout.readline().startswith(b"SESSION")
    reader.stdout.close()  # what `| head -1` does
    _, errors = reader.communicate(timeout=60)
    assert reader.returncode == 0
    assert b"BrokenPipe" not in errors and b"Traceback" not in errors


# ---- deleting a session ---------------------------------------------------------------


def checkpoint_threads(settings) -> set[str]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(settings.sessions_db_path)) as db:
        return {row[0] for row in db.execute("SELECT DISTINCT thread_id FROM checkpoints")}


async def finished_sessions(settings, count: int) -> list[str]:
    ids = []
    for _ in range(count):
        scenario = Scenario(tracks=3)
        async with open_session(settings, deps=scenario.deps(settings)) as session:
            await collect(session.start("Compare alpha and beta", mode="deep"))
            events = await collect(session.review_plan(PlanDecision(action="approve")))
            assert any(isinstance(event, ReportReady) for event in events)
            ids.append(session.session_id)
    return ids


async def test_deleting_a_session_removes_everything_stored_for_it_and_nothing_else(
    tmp_path: Path,
) -> None:
    from engine.sessions import adelete_session, list_sessions
    from engine.sessions_log import events_path

    settings = make_settings(tmp_path)
    gone, kept = await finished_sessions(settings, 2)
    # A follow-up question's report sits beside the first one's.
    (settings.reports_dir / f"{gone}-2.md").write_text("follow-up", encoding="utf-8")
    (settings.reports_dir / f"{gone}-2.audit.json").write_text("{}", encoding="utf-8")
    assert {gone, kept} <= checkpoint_threads(settings)

    deleted = await adelete_session(settings, gone)

    assert deleted.checkpoints
    assert {path.name for path in deleted.files} == {
        f"{gone}.jsonl",
        f"{gone}.md",
        f"{gone}.audit.json",
        f"{gone}-2.md",
        f"{gone}-2.audit.json",
    }
    assert [info.session_id for info in list_sessions(settings)] == [kept]
    assert gone not in checkpoint_threads(settings)
    assert kept in checkpoint_threads(settings)
    assert not events_path(settings, gone).exists()
    assert not any(path.name.startswith(gone) for path in settings.reports_dir.iterdir())
    # The other session is whole: its events, report and audit are where they were.
    assert events_path(settings, kept).is_file()
    assert (settings.reports_dir / f"{kept}.md").is_file()
    assert (settings.reports_dir / f"{kept}.audit.json").is_file()


_LIVE_RUN = """
import sys, time
from engine.config import settings_from_mapping
from engine.sessions import load_report, record_session
settings = settings_from_mapping({"DATA_DIR": sys.argv[1]})
record_session(settings, sys.argv[2], status="running", question="Long question?")
print("started", flush=True)
time.sleep(120)
"""


def test_a_session_another_process_runs_is_not_deleted(tmp_path: Path) -> None:
    import pytest

    from engine.sessions import SessionNotDeleted, delete_session, list_sessions

    settings = make_settings(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-c", _LIVE_RUN, str(settings.data_dir), "s-live"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "started"
        with pytest.raises(SessionNotDeleted, match="is running; cancel the run"):
            delete_session(settings, "s-live")
        assert [info.session_id for info in list_sessions(settings)] == ["s-live"]
    finally:
        process.kill()
        process.wait(timeout=10)
    # Once its process is gone the run is interrupted, and can go.
    delete_session(settings, "s-live")
    assert list_sessions(settings) == []


def test_a_session_this_process_runs_is_not_deleted(tmp_path: Path) -> None:
    import pytest

    from engine.sessions import SessionNotDeleted, delete_session, get_session

    settings = make_settings(tmp_path)
    record_session(settings, "s-here", status="running", question="q")
    try:
        with pytest.raises(SessionNotDeleted, match="running"):
            delete_session(settings, "s-here")
        assert get_session(settings, "s-here") is not None
    finally:
        record_session(settings, "s-here", status="cancelled")
    delete_session(settings, "s-here")
    assert get_session(settings, "s-here") is None


def test_deleting_an_unknown_or_unsafe_session_id_is_refused(tmp_path: Path) -> None:
    import pytest

    from engine.sessions import SessionNotDeleted, delete_session

    settings = make_settings(tmp_path)
    record_session(settings, "s-1", status="completed", question="q")
    (settings.data_dir / "victim.md").write_text("x", encoding="utf-8")
    for wanted in ("s-2", "../victim", ""):
        with pytest.raises(SessionNotDeleted, match="no saved session"):
            delete_session(settings, wanted)
    assert (settings.data_dir / "victim.md").is_file()
