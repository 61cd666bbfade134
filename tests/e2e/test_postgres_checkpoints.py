"""CHECKPOINT_URL: checkpoints in a real PostgreSQL (127.0.0.1:5432), one database per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.checkpoints import CheckpointStoreError
from engine.commands.run import EXIT_NEEDS_INPUT, EXIT_OK, run_headless
from engine.config import Settings
from engine.run.runner import open_session
from tests.fixtures.servers import local_settings
from tests.unit.engine.test_headless import parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
SERVER = os.environ.get("TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432")
QUESTION = "How do asyncio queues and locks coordinate tasks?"


def _admin() -> object:
    import psycopg

    return psycopg.connect(f"{SERVER}/postgres", autocommit=True, connect_timeout=3)


@pytest.fixture
def database() -> Iterator[str]:
    """The URL of a fresh database, dropped afterwards."""
    import psycopg

    try:
        admin = _admin()
    except psycopg.OperationalError as exc:
        if os.environ.get("CI"):
            raise  # CI has PostgreSQL: an unreachable server fails the run
        pytest.skip(f"no PostgreSQL answers at {SERVER}: {exc}")
    name = f"deepresearch_test_{uuid.uuid4().hex[:12]}"
    with admin:  # type: ignore[attr-defined]
        admin.execute(f'CREATE DATABASE "{name}"')  # type: ignore[attr-defined]
        try:
            yield f"{SERVER}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[attr-defined]


def settings_for(data_dir: Path, url: str) -> Settings:
    return local_settings(data_dir, DOCS, CHECKPOINT_URL=url)


async def test_a_session_paused_in_one_process_is_approved_in_another_from_postgres(
    tmp_path: Path, database: str
) -> None:
    import io

    import psycopg

    # Two "workers": separate data folders, one shared PostgreSQL.
    first = settings_for(tmp_path / "a", database)
    code = await run_headless(
        first,
        parse(QUESTION, "--mode", "deep"),
        stderr=io.StringIO(),
        stdout=(out := io.StringIO()),
    )
    assert code == EXIT_NEEDS_INPUT
    session_id = out.getvalue().strip()
    with psycopg.connect(database) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (session_id,)
        ).fetchone()
    assert rows is not None and rows[0] > 0

    second = settings_for(tmp_path / "b", database)
    async with open_session(second, session_id) as session:
        assert await session.stage() == "paused"
    code = await run_headless(
        second,
        parse("--resume", session_id, "--yes"),
        stderr=(said := io.StringIO()),
        stdout=(report := io.StringIO()),
    )
    assert code == EXIT_OK, said.getvalue()  # a failure says why
    assert "## Sources" in report.getvalue()


async def test_an_unreachable_postgres_is_one_clear_error_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.store.postgres_checkpoints

    # Nothing listens on port 9: the full wait for a server still starting adds nothing here.
    monkeypatch.setattr(engine.store.postgres_checkpoints, "POSTGRES_CONNECT_SECONDS", 1.0)
    settings = settings_for(tmp_path, "postgresql://someone:hunter2@127.0.0.1:9/nowhere")
    with pytest.raises(CheckpointStoreError) as caught:
        async with open_session(settings):
            pass
    assert "CHECKPOINT_URL" in str(caught.value) and "hunter2" not in str(caught.value)


async def test_workers_opening_a_fresh_database_together_all_start(
    tmp_path: Path, database: str
) -> None:
    import asyncio

    from engine.checkpoints import checkpointer

    # Workers of one deployment (and the engine processes of one worker) open the store at
    # the same moment; every one of them must find the checkpoint tables ready.
    settings = settings_for(tmp_path, database)
    release = asyncio.Event()

    async def open_store() -> bool:
        async with checkpointer(settings) as saver:
            await release.wait()
            return await saver.aget_tuple({"configurable": {"thread_id": "none"}}) is None

    opening = [asyncio.create_task(open_store()) for _ in range(6)]
    await asyncio.sleep(0.5)
    release.set()
    assert await asyncio.gather(*opening) == [True] * 6
