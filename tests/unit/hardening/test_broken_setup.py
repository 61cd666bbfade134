"""A data directory or `.env` that cannot be used gets a one-line message and exit code 2."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.unit.hardening.conftest import Sandbox


def _assert_clean_failure(code: int, err: str, *names: str) -> None:
    assert code == 2
    assert err.startswith("deepresearch: ")
    assert "Traceback" not in err
    for name in names:
        assert name in err


@pytest.mark.parametrize("command", [["run", "How are tasks cancelled?", "--yes"], ["sessions"]])
def test_data_dir_pointing_at_a_file(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, command: list[str]
):
    a_file = sandbox.root / "not-a-folder"
    a_file.write_text("x")
    monkeypatch.setenv("DATA_DIR", str(a_file))
    code, _out, err = sandbox.run(*command)
    _assert_clean_failure(code, err, "DATA_DIR", str(a_file))


def test_data_dir_below_a_file(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch):
    a_file = sandbox.root / "not-a-folder"
    a_file.write_text("x")
    monkeypatch.setenv("DATA_DIR", str(a_file / "data"))
    code, _out, err = sandbox.run("run", "How are tasks cancelled?", "--yes")
    _assert_clean_failure(code, err, "DATA_DIR")


def test_data_dir_on_a_read_only_file_system(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch):
    real_mkdir = Path.mkdir

    def read_only_mkdir(self: Path, *args: object, **kwargs: object) -> None:
        if self == sandbox.data_dir:
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", read_only_mkdir)
    commands = (["run", "How are tasks cancelled?", "--yes"], ["index", str(sandbox.documents)])
    for command in commands:
        code, _out, err = sandbox.run(*command)
        _assert_clean_failure(code, err, "DATA_DIR", "Read-only file system")


def test_env_file_with_invalid_utf8(sandbox: Sandbox):
    env_file = sandbox.root / ".env"
    env_file.write_bytes(b"SEARCH_PROVIDER=local\nNOTE=caf\xe9 \xff\xfe\n")
    for command in (["sessions"], ["doctor", "--no-probe"], ["run", "Tasks?", "--yes"]):
        code, _out, err = sandbox.run(*command)
        _assert_clean_failure(code, err, str(env_file), "UTF-8")
