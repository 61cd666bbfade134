"""A run whose process died (kill -9) is listed as interrupted, with how to resume it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.unit.hardening.conftest import Sandbox

ROOT = Path(__file__).resolve().parents[3]
# What a run does first: record its session as running. Then it works for a long while.
_RUNNER = """
import sys, time
from engine.config import settings_from_mapping
from engine.sessions import record_session
settings = settings_from_mapping({"DATA_DIR": sys.argv[1]})
record_session(settings, sys.argv[2], status="running", question="Long question?")
print("started", flush=True)
time.sleep(120)
"""


def _start_run(data_dir: Path, session_id: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _RUNNER, str(data_dir), session_id],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "started"
    return process


def test_a_killed_run_is_interrupted_and_a_live_one_is_running(sandbox: Sandbox):
    killed = _start_run(sandbox.data_dir, "20260101-000000-dead01")
    alive = _start_run(sandbox.data_dir, "20260101-000000-live01")
    try:
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(timeout=10)
        time.sleep(0.1)
        code, out, _err = sandbox.run("sessions")
        assert code == 0
        rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
        assert rows["20260101-000000-dead01"].split()[1] == "interrupted"
        assert rows["20260101-000000-live01"].split()[1] == "running"
        assert "interrupted — resume with: deepresearch run --resume 20260101-000000-dead01" in out
        assert "--resume 20260101-000000-live01" not in out
    finally:
        alive.kill()
        alive.wait(timeout=10)
        killed.kill()
    # Once that one is gone too, it is interrupted as well.
    _code, out, _err = sandbox.run("sessions")
    assert "--resume 20260101-000000-live01" in out
