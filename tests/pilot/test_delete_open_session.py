"""Deleting a session another live app has open, paused at plan review, is refused.

The other app is a real second process (`app_at_plan_review.py`): the refusal rests on a lock
the kernel drops when that process dies, so a killed app blocks nothing afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import settings_from_mapping
from engine.protocol import SessionNotDeleted
from engine.sessions import delete_session, get_session
from tests.helpers.sample_index import seed_sample_index

ROOT = Path(__file__).resolve().parents[2]
HOLDER = Path(__file__).with_name("app_at_plan_review.py")

pytestmark = pytest.mark.timeout(300)


def _data_dir(tmp_path: Path) -> Path:
    return seed_sample_index(tmp_path / "data")


def _env(data_dir: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "DATA_DIR": str(data_dir)}


def _open_elsewhere(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """Start the other app and wait until its session waits for plan review."""
    holder = subprocess.Popen(
        [sys.executable, str(HOLDER), str(data_dir)],
        cwd=ROOT,
        env=_env(data_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    line = holder.stdout.readline().split()
    assert line[:1] == ["ready"], f"the other app did not reach plan review: {line}"
    return holder, line[1]


def test_a_session_open_at_plan_review_in_another_app_is_not_deleted(
    tmp_path: Path,
) -> None:
    data_dir = _data_dir(tmp_path)
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    holder, session_id = _open_elsewhere(data_dir)
    try:
        info = get_session(settings, session_id)
        assert info is not None and info.status == "awaiting_plan_review"
        with pytest.raises(SessionNotDeleted) as refused:
            delete_session(settings, session_id)
        reason = str(refused.value)
        assert "open in another deepresearch app" in reason
        assert f"process {holder.pid}" in reason
        assert "waiting for its plan to be reviewed" in reason
        assert get_session(settings, session_id) is not None

        # The command line refuses too, with the reason, even with --yes.
        command = subprocess.run(
            [sys.executable, "-m", "tui.cli", "sessions", "--delete", session_id, "--yes"],
            cwd=ROOT,
            env=_env(data_dir),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert command.returncode == 1, command.stderr
        assert "open in another deepresearch app" in command.stderr
        assert get_session(settings, session_id) is not None
    finally:
        # Killed, not quit: it records nothing, and its hold must still end with it.
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    deleted = delete_session(settings, session_id)
    assert deleted.session_id == session_id
    assert get_session(settings, session_id) is None


def test_a_session_the_other_app_has_closed_can_be_deleted(
    tmp_path: Path,
) -> None:
    data_dir = _data_dir(tmp_path)
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    holder, session_id = _open_elsewhere(data_dir)
    assert holder.stdin is not None
    holder.stdin.write("quit\n")
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0
    assert not list((data_dir / "open").glob("*.lock")), "the app leaves no lock behind"
    delete_session(settings, session_id)
    assert get_session(settings, session_id) is None
