"""Kill a session's process mid-research, resume it in another: finished units are kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("session_worker.py")
ROOT = Path(__file__).resolve().parents[3]


def _events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _spawn(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(WORKER), *args], cwd=ROOT, env=env)


@pytest.mark.timeout(120)
def test_killed_run_resumes_without_rerunning_completed_units(tmp_path: Path):
    events_log, starts_log = tmp_path / "events.jsonl", tmp_path / "starts.log"
    common = [str(tmp_path), str(events_log), str(starts_log)]
    first = _spawn("start", *common)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = [
                e
                for e in _events(events_log)
                if e["type"] == "research_unit_updated" and e["unit"]["status"] == "completed"
            ]
            if done:
                break
            assert first.poll() is None, "the worker exited before research finished"
            time.sleep(0.1)
        else:
            pytest.fail("the fast research unit never completed")
        assert done[0]["unit"]["topic"].startswith("Research track: Track alpha\n")
        time.sleep(0.5)  # let the checkpointer flush the finished unit's writes
    finally:
        first.kill()
        first.wait()
    # beta was still searching its queries, before its researcher's first turn.
    assert starts_log.read_text().split() == ["alpha"]

    second_events = tmp_path / "events-2.jsonl"
    second = _spawn(
        "resume", str(tmp_path), str(second_events), str(starts_log), "resume-test-session"
    )
    assert second.wait(timeout=90) == 0
    # alpha ran once, in the first process; the unfinished beta ran again, then gamma.
    assert sorted(starts_log.read_text().split()) == ["alpha", "beta", "gamma"]
    events = _events(second_events)
    assert events[0]["type"] == "session_started" and events[0]["resumed"] is True
    report = next(e for e in events if e["type"] == "report_ready")
    kept = {c["source"] for c in report["kept_citations"]}
    assert "https://alpha.example.org/article-1" in kept
    assert "https://beta.example.org/article-1" in kept
    finished = dict(events[-1])
    assert isinstance(finished.pop("at"), float)  # when the run ended
    assert finished == {
        "type": "run_finished",
        "session_id": "resume-test-session",
        "status": "completed",
    }
