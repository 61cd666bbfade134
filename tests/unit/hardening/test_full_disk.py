"""A full disk is one line naming what could not be written, and the session stays resumable;
`deepresearch sessions` still lists what the index holds."""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import pytest

from engine.disk_errors import describe, disk_failure
from tests.unit.hardening.conftest import Sandbox

QUESTION = "How are tasks cancelled?"


def _no_space(*_args: Any, **_kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_report_the_disk_cannot_take_fails_the_run_in_one_line(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("engine.nodes.verify.replace_private_text", _no_space)
    code, _out, err = sandbox.run("run", QUESTION, "--yes", "--mode", "quick")
    assert code != 0
    assert "Traceback" not in err
    assert "could not write the report: the disk is full" in err
    assert "deepresearch run --resume" in err
    # The session is kept and listed: it can be resumed once there is room.
    code, out, _err = sandbox.run("sessions")
    assert code == 0 and QUESTION in out


def test_checkpoints_the_disk_cannot_take_are_one_line_not_a_chain_of_tracebacks(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    @contextlib.asynccontextmanager
    async def full(_settings: Any) -> AsyncIterator[Any]:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as exc:
            raise RuntimeError("while handling it, another write failed") from exc
        yield  # pragma: no cover

    monkeypatch.setattr("engine.run.runner.checkpointer", full)
    code, _out, err = sandbox.run("run", QUESTION, "--yes", "--mode", "quick")
    assert code == 1
    assert "Traceback" not in err
    assert err.count("\n") == 1 and "could not write" in err and "resume" in err


def test_sessions_lists_the_index_when_the_disk_takes_no_write(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    code, _out, err = sandbox.run("run", QUESTION, "--yes", "--mode", "quick")
    assert code == 0, err

    def refused(_path: Any) -> sqlite3.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr("engine.store.sqlite._connect", refused)
    code, out, err = sandbox.run("sessions")
    assert code == 0, err
    assert QUESTION in out and "completed" in out


def test_a_disk_error_is_found_anywhere_in_a_chain_and_named() -> None:
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device", "/data/session-events/x.jsonl")
        except OSError as first:
            raise ValueError("recording the failure failed too") from first
    except ValueError as chained:
        failure = disk_failure(chained)
    assert failure is not None
    assert describe(failure).startswith(
        "could not write /data/session-events/x.jsonl: the disk is full."
    )
    assert disk_failure(ValueError("unrelated")) is None
    assert disk_failure(OSError(errno.ENOENT, "missing")) is None
