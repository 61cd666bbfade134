"""The data directory and the files a session writes in it are readable by their user alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.config import settings_from_mapping
from engine.data_dir import prepare_data_dir
from tests.unit.hardening.conftest import Sandbox


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_session_leaves_only_private_folders_and_files(sandbox: Sandbox):
    os.umask(0o022)  # the usual umask, under which files default to world-readable
    code, _out, err = sandbox.run("run", "How are tasks cancelled?", "--yes", "--mode", "quick")
    assert code in (0, 4), err
    data = sandbox.data_dir
    expected_files = [
        data / "sessions.sqlite",
        data / "sessions-index.sqlite",
        data / "index.sqlite",
        data / "logs" / "deepresearch.log",
        *(data / "reports").glob("*.md"),
        *(data / "reports").glob("*.audit.json"),
        *(data / "session-events").glob("*.jsonl"),
    ]
    assert len(expected_files) >= 7
    for path in expected_files:
        assert _mode(path) == 0o600, path
    for folder in (data, data / "logs", data / "reports", data / "session-events"):
        assert _mode(folder) == 0o700, folder
    # SQLite's companions take their database's mode.
    for path in data.glob("*.sqlite-*"):
        assert _mode(path) & 0o077 == 0, path


def test_a_data_dir_left_open_by_an_older_version_is_tightened(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    (data / "sessions.sqlite").touch()
    os.chmod(data / "sessions.sqlite", 0o644)
    prepare_data_dir(settings_from_mapping({"DATA_DIR": str(data)}))
    assert _mode(data) == 0o700
    assert _mode(data / "sessions.sqlite") == 0o600


def test_a_shared_folder_named_as_data_dir_keeps_its_mode(tmp_path: Path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    (shared / "someone-elses-file.txt").write_text("x")
    prepare_data_dir(settings_from_mapping({"DATA_DIR": str(shared)}))
    assert _mode(shared) == 0o755
    assert _mode(shared / "sessions.sqlite") == 0o600
