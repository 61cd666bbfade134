"""Deleting a session whose checkpoints live in PostgreSQL (CHECKPOINT_URL) removes its thread
there, not only its files in DATA_DIR."""

from __future__ import annotations

import io
from pathlib import Path

from engine.commands.run import EXIT_NEEDS_INPUT, run_headless
from engine.sessions import adelete_session, get_session
from tests.e2e.test_postgres_checkpoints import QUESTION, database, settings_for
from tests.unit.engine.test_headless import parse

__all__ = ["database"]  # the fixture, used by name below


def _threads(url: str, session_id: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (session_id,)
        ).fetchone()
    assert row is not None
    return int(row[0])


async def test_deleting_a_session_removes_its_postgres_checkpoints(
    tmp_path: Path, database: str
) -> None:
    settings = settings_for(tmp_path, database)
    outputs = []
    for _ in range(2):
        code = await run_headless(
            settings,
            parse(QUESTION, "--mode", "deep"),
            stderr=io.StringIO(),
            stdout=(out := io.StringIO()),
        )
        assert code == EXIT_NEEDS_INPUT  # paused at plan review, checkpointed
        outputs.append(out.getvalue().strip())
    gone, kept = outputs
    assert _threads(database, gone) > 0 and _threads(database, kept) > 0

    deleted = await adelete_session(settings, gone)

    assert deleted.checkpoints
    assert _threads(database, gone) == 0
    assert _threads(database, kept) > 0
    assert get_session(settings, gone) is None and get_session(settings, kept) is not None
