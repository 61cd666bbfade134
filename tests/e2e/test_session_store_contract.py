"""Both session stores keep the same promises: the SQLite files of DATA_DIR and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.store import HeldElsewhere, SessionStore, session_store
from engine.store.postgres import PostgresSessionStore
from engine.store.sqlite import SqliteSessionStore
from tests.e2e.test_postgres_checkpoints import database, settings_for
from tests.fixtures.servers import local_settings

__all__ = ["database"]  # the fixture, used by name
DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
SESSION = "20261129-100000-abc123"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    if request.param == "postgres":
        return session_store(settings_for(tmp_path, request.getfixturevalue("database")))
    return session_store(local_settings(tmp_path, DOCS))


def test_the_factory_chooses_the_store_from_the_settings(tmp_path: Path) -> None:
    assert isinstance(session_store(local_settings(tmp_path, DOCS)), SqliteSessionStore)
    url = "postgresql://someone@127.0.0.1:9/nowhere"
    assert isinstance(session_store(settings_for(tmp_path, url)), PostgresSessionStore)


def test_a_row_is_written_updated_listed_and_forgotten(store: SessionStore) -> None:
    store.write_row(SESSION, "running", "How?", "deep", None, "2026-11-29T10:00:00+00:00")
    store.write_row(SESSION, "completed", None, None, "/r.md", "2026-11-29T10:05:00+00:00")
    store.write_row("20261129-090000-xyz789", "failed", "Older?", None, None, "2026-11-29T09:00")
    rows = store.rows()
    assert [row[0] for row in rows] == [SESSION, "20261129-090000-xyz789"]
    assert rows[0][1:] == (
        "How?",
        "2026-11-29T10:00:00+00:00",
        "2026-11-29T10:05:00+00:00",
        "completed",
        "deep",
        "/r.md",
    )
    store.forget(SESSION)
    assert [row[0] for row in store.rows()] == ["20261129-090000-xyz789"]


def test_event_lines_are_numbered_from_one_and_followed_after_a_number(
    store: SessionStore,
) -> None:
    assert store.event_lines(SESSION) is None  # no log at all
    follower = store.follow_events(SESSION, after=1)
    appender = store.event_appender(SESSION)
    try:
        for line in ('{"n": 1}', '{"n": 2}', '{"n": 3}'):
            appender.append(line)
        assert follower.new_lines() == [(2, '{"n": 2}'), (3, '{"n": 3}')]
        appender.append('{"n": 4}')
    finally:
        appender.close()
    assert follower.new_lines() == [(4, '{"n": 4}')]
    assert follower.new_lines() == []
    assert store.event_lines(SESSION, after=2) == [(3, '{"n": 3}'), (4, '{"n": 4}')]
    # A second writer of the log (the next leg) numbers after what is stored.
    appender = store.event_appender(SESSION)
    appender.append('{"n": 5}')
    appender.close()
    assert [number for number, _line in store.event_lines(SESSION) or []] == [1, 2, 3, 4, 5]


def test_a_session_held_on_a_shared_store_is_refused_naming_its_holder(
    tmp_path: Path,
    database: str,
) -> None:
    store = session_store(settings_for(tmp_path, database))
    hold = store.take_running(SESSION, "process 1 on host-a, worker-a")
    assert hold is not None
    try:
        assert store.running_anywhere(SESSION)
        with pytest.raises(HeldElsewhere) as held:
            store.take_running(SESSION, "process 2 on host-b, worker-b")
        assert held.value.holder == "process 1 on host-a, worker-a"
    finally:
        hold.close()
    assert not store.running_anywhere(SESSION)


def test_a_store_in_data_dir_leaves_who_runs_a_session_to_this_machine(tmp_path: Path) -> None:
    store = session_store(local_settings(tmp_path, DOCS))
    assert store.take_running(SESSION, "process 1") is None
    assert not store.running_anywhere(SESSION)
    assert not store.has_checkpoints()  # nothing was ever checkpointed here


def test_a_store_that_opens_reports_no_problem_before_serving(store: SessionStore) -> None:
    assert store.opening_problem() is None


def test_a_store_it_cannot_reach_is_one_line_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.store.postgres_checkpoints

    # Nothing listens on port 9: the full wait for a server still starting adds nothing here.
    monkeypatch.setattr(engine.store.postgres_checkpoints, "POSTGRES_CONNECT_SECONDS", 1.0)
    url = "postgresql://someone:hunter2@127.0.0.1:9/nowhere"
    problem = session_store(settings_for(tmp_path, url)).opening_problem()
    assert problem is not None and "CHECKPOINT_URL" in problem and "hunter2" not in problem
