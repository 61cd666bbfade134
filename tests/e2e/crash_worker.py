"""A headless deep session in a process that kills itself (SIGKILL) at a named point.

    python crash_worker.py DATA_DIR SESSION_ID KILL_POINT start|resume

KILL_POINT (test-only; the engine knows nothing of it):
    none                  run to the end
    phase:NAME            when the runner first sees PhaseChanged(phase=NAME)
    event:TYPE            when the runner first sees an event of TYPE
    writes:CHANNEL        once a top-level task's pending writes to CHANNEL are saved
    checkpoint:CHANNEL    once a top-level checkpoint holding CHANNEL is saved
    before:MODULE.NAME    when MODULE.NAME is called (inside a node)
    after:MODULE.NAME     when MODULE.NAME has returned

CHECKPOINT_URL in the environment puts checkpoints, index and events in PostgreSQL. The exit
code is `deepresearch run`'s.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import os
import signal
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUESTION = "How do asyncio queues and locks coordinate tasks?"


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _kill_on_event(test: Any) -> None:
    import engine.run.runner

    original = engine.run.runner._Leg.see

    def see(self: Any, event: Any) -> None:
        if test(event):
            _die()
        original(self, event)

    engine.run.runner._Leg.see = see  # type: ignore[method-assign]


def _savers() -> list[Any]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    return [AsyncSqliteSaver, AsyncPostgresSaver]


def _top_level(config: Any) -> bool:
    return not (config.get("configurable") or {}).get("checkpoint_ns")


def _kill_after_writes(channel: str) -> None:
    for saver in _savers():
        original = saver.aput_writes

        async def aput_writes(
            self: Any, config: Any, writes: Any, *a: Any, _o: Any = original, **k: Any
        ) -> Any:
            result = await _o(self, config, writes, *a, **k)
            if _top_level(config) and any(name == channel for name, _value in writes):
                _die()
            return result

        saver.aput_writes = aput_writes


def _kill_after_checkpoint(channel: str) -> None:
    for saver in _savers():
        original = saver.aput

        async def aput(
            self: Any, config: Any, checkpoint: Any, *a: Any, _o: Any = original, **k: Any
        ) -> Any:
            result = await _o(self, config, checkpoint, *a, **k)
            if _top_level(config) and channel in (checkpoint.get("channel_values") or {}):
                _die()
            return result

        saver.aput = aput


def _kill_around_call(where: str, target: str) -> None:
    module_name, _, name = target.rpartition(".")
    module = importlib.import_module(module_name)
    original = getattr(module, name)

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            if where == "before":
                _die()
            result = await original(*args, **kwargs)
            _die()
            return result

    else:

        @functools.wraps(original)
        def wrapped(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            if where == "before":
                _die()
            result = original(*args, **kwargs)
            _die()
            return result

    setattr(module, name, wrapped)


def install(point: str) -> None:
    kind, _, name = point.partition(":")
    if kind == "none":
        return
    if kind == "phase":
        _kill_on_event(lambda e: e.type == "phase_changed" and e.phase == name)
    elif kind == "event":
        _kill_on_event(lambda e: e.type == name)
    elif kind == "writes":
        _kill_after_writes(name)
    elif kind == "checkpoint":
        _kill_after_checkpoint(name)
    elif kind in ("before", "after"):
        _kill_around_call(kind, name)
    else:
        raise SystemExit(f"unknown kill point {point!r}")


def settings_for(data_dir: Path, url: str | None = None) -> Any:
    from tests.fixtures.servers import local_settings

    extra = {
        "MAX_RESEARCHER_ITERATIONS": "3",
        "MAX_CONCURRENT_RESEARCH_UNITS": "3",
        "MIN_EVIDENCE_RECORDS": "2",
        "MIN_SOURCE_DOMAINS": "1",
    }
    if url:
        extra["CHECKPOINT_URL"] = url
    return local_settings(data_dir, DOCS, **extra)


async def main() -> int:
    data_dir, session_id, point, command = sys.argv[1:5]
    import engine.run.runner
    from engine.commands.run import run_headless
    from tests.unit.engine.test_headless import parse

    engine.run.runner.new_session_id = lambda: session_id
    settings = settings_for(Path(data_dir), os.environ.get("CHECKPOINT_URL"))
    install(point)
    if command == "start":
        args = parse(QUESTION, "--mode", "deep", "--yes")
    else:
        args = parse("--resume", session_id, "--yes")
    return await run_headless(settings, args)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
