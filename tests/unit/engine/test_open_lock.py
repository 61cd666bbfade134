"""The lock that says a process has a session open (run_lock.hold_open / release_open)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from engine import run_lock
from engine.sessions import delete_session, get_session, record_session
from tests.unit.engine.conftest import make_settings


def _taken_elsewhere(path: Path) -> bool:
    """Whether an exclusive lock is refused to a new open of `path` (as another process's)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)
    return False


def test_the_lock_lasts_until_the_last_close_then_its_file_goes(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    path = run_lock.open_lock_path(settings, "s-open")
    assert path is not None
    run_lock.hold_open(settings, "s-open")
    run_lock.hold_open(settings, "s-open")  # reopened before the first close finished
    run_lock.release_open(settings, "s-open")
    assert _taken_elsewhere(path)
    assert path.read_text() == str(os.getpid())
    run_lock.release_open(settings, "s-open")
    assert not path.exists()


def test_this_process_may_delete_the_session_it_has_open(tmp_path: Path) -> None:
    # The app deleting the session it shows: allowed, and the app then clears its screen.
    settings = make_settings(tmp_path)
    record_session(settings, "s-mine", status="awaiting_plan_review", question="q")
    run_lock.hold_open(settings, "s-mine")
    try:
        delete_session(settings, "s-mine")
        assert get_session(settings, "s-mine") is None
    finally:
        run_lock.release_open(settings, "s-mine")
    assert not list((settings.data_dir / run_lock.OPEN_DIR).iterdir())


def test_a_session_held_open_by_another_open_file_is_refused_and_kept(tmp_path: Path) -> None:
    from engine.protocol import SessionNotDeleted

    settings = make_settings(tmp_path)
    record_session(settings, "s-other", status="awaiting_clarification", question="q")
    path = run_lock.open_lock_path(settings, "s-other")
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_text("4242")
    other = os.open(path, os.O_RDONLY)  # what another process's hold looks like
    fcntl.flock(other, fcntl.LOCK_SH)
    try:
        with pytest.raises(SessionNotDeleted, match=r"process 4242\), waiting for the answer"):
            delete_session(settings, "s-other")
        assert get_session(settings, "s-other") is not None
        assert path.exists()
    finally:
        os.close(other)
    delete_session(settings, "s-other")
    assert get_session(settings, "s-other") is None


def test_a_lock_file_removed_while_it_is_taken_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deletion ending removes the file between its creation and its opening here.
    settings = make_settings(tmp_path)
    path = run_lock.open_lock_path(settings, "s-race")
    assert path is not None
    create = run_lock.private_file
    removed: list[Path] = []

    def created_then_removed(target: Path) -> Path:
        create(target)
        if not removed:
            removed.append(target)
            target.unlink()
            target.stat()  # what tightening its mode then does: the file is gone
        return target

    monkeypatch.setattr(run_lock, "private_file", created_then_removed)
    run_lock.hold_open(settings, "s-race")
    try:
        assert removed and _taken_elsewhere(path)
    finally:
        run_lock.release_open(settings, "s-race")
