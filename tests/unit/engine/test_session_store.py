"""Stored session events and the sessions command (issue 15: 1, 16)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.events import EvidenceAdded, PlanProposed, ReportReady
from engine.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import record_session
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


def test_sessions_piped_into_head_ends_without_a_traceback(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    for number in range(3000):
        record_session(settings, f"s-{number:05d}", status="completed", question="q " * 20)
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
