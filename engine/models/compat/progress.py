"""Visible progress for long model calls: a slow local model is never silent for minutes.

A call that is still waiting for its first token after a few seconds announces itself, then
reports its generated tokens every few seconds; short calls emit nothing at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from types import TracebackType
from typing import Any

from engine.emit import emit
from engine.events import ModelCallProgress

FIRST_REPORT_SECONDS = 5.0
REPORT_EVERY_SECONDS = 10.0


class CallProgress:
    """Async context manager around one streamed model call."""

    def __init__(self, role: str, endpoint: str) -> None:
        self.role = role
        self.endpoint = endpoint
        self.tokens = 0
        self.started = time.monotonic()
        self._reported = False
        self._task: asyncio.Task[None] | None = None

    def tick(self, pieces: int = 1) -> None:
        self.tokens += pieces

    def _event(self, state: Any, detail: str = "") -> ModelCallProgress:
        return ModelCallProgress(
            role=self.role,
            endpoint=self.endpoint,
            state=state,
            output_tokens=self.tokens,
            elapsed_seconds=round(time.monotonic() - self.started, 1),
            detail=detail,
        )

    async def _heartbeat(self) -> None:
        await asyncio.sleep(FIRST_REPORT_SECONDS)
        while True:
            self._reported = True
            emit(self._event("generating" if self.tokens else "waiting"))
            await asyncio.sleep(REPORT_EVERY_SECONDS)

    async def __aenter__(self) -> CallProgress:
        self.started = time.monotonic()
        self._task = asyncio.create_task(self._heartbeat())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._reported and exc is None:
            emit(self._event("finished"))


def announce_retry(role: str, endpoint: str, attempt: int, reason: str, wait: float) -> None:
    emit(
        ModelCallProgress(
            role=role,
            endpoint=endpoint,
            state="retrying",
            # The reason first: a status line at 80 columns keeps the start of it.
            detail=f"{reason}; retrying in {wait:.0f}s (attempt {attempt + 1} failed)",
        )
    )
