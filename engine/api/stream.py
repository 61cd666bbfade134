"""A session's events as Server-Sent Events, read from its stored log.

Event ids are line numbers of the log (numbers per session in PostgreSQL, with CHECKPOINT_URL),
so a client that reconnects with `Last-Event-ID`
gets exactly the events after the last one it saw, whichever worker wrote them. The stream
ends once the session's run has paused or ended and every stored event was sent.

Frames are `sse_starlette` events, each `id:`, `event:`, `data:` line ended by a bare newline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Mapping
from typing import Protocol

from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import AppStatus

from engine.config import Settings
from engine.sessions import is_running
from engine.store import session_store

# How often a stream looks at the log when no event of this worker woke it (another
# worker's run), and how often an idle stream sends a comment so proxies keep it open.
POLL_SECONDS = 0.25
KEEPALIVE_SECONDS = 15.0
# The line ending of every frame: what the stream has always sent (sse_starlette's own is CRLF).
SEPARATOR = "\n"

# A stream still open when the server is told to stop keeps it serving until its session
# settles, as it always has: sse_starlette would cut every stream at the signal instead.
AppStatus.disable_automatic_graceful_drain()


class PulseSource(Protocol):
    """Whoever runs the sessions: wakes a stream at each event of its session."""

    async def wait_for_pulse(self, session_id: str, seconds: float) -> None: ...


class Pulses:
    """A wake-up per session for the streams following it, set at each of its events.

    Used on the server's loop only: whoever hears of an event (the engine thread, the pipe
    of an engine process) hands `wake` to that loop.
    """

    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Event] = {}

    def wake(self, session_id: str) -> None:
        waiting = self._waiting.pop(session_id, None)
        if waiting is not None:
            waiting.set()

    def wake_all(self) -> None:
        for waiting in self._waiting.values():
            waiting.set()
        self._waiting.clear()

    async def wait(self, session_id: str, seconds: float) -> None:
        """Return at the session's next event, or after `seconds` (another worker's)."""
        waiting = self._waiting.setdefault(session_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiting.wait(), seconds)


def _event(number: int, line: str) -> ServerSentEvent:
    try:
        kind = str(json.loads(line).get("type", "message"))
    except ValueError:
        kind = "message"
    return ServerSentEvent(line, id=str(number), event=kind, sep=SEPARATOR)


def _keep_alive() -> ServerSentEvent:
    return ServerSentEvent(comment="keep-alive", sep=SEPARATOR)


async def session_events(
    settings: Settings,
    session_id: str,
    runs: PulseSource,
    *,
    after: int = 0,
    still_running: Callable[[], Awaitable[bool]],
) -> AsyncIterator[ServerSentEvent]:
    """SSE frames of the session's events with ids above `after`, live until it settles."""
    # Events in PostgreSQL have the same numbers, whichever machine's worker wrote them.
    follower = session_store(settings).follow_events(session_id, after)
    last_sent = time.monotonic()
    while True:
        # Before the log: an event written after is not lost. A session some live run holds
        # (on any worker, between two legs it chains) is followed, whatever its row says.
        running = await still_running() or await asyncio.to_thread(is_running, settings, session_id)
        for number, line in await asyncio.to_thread(follower.new_lines):
            yield _event(number, line)
            last_sent = time.monotonic()
        if not running:
            return
        if time.monotonic() - last_sent >= KEEPALIVE_SECONDS:
            yield _keep_alive()
            last_sent = time.monotonic()
        await runs.wait_for_pulse(session_id, POLL_SECONDS)


def event_stream(
    events: AsyncIterable[ServerSentEvent], headers: Mapping[str, str]
) -> EventSourceResponse:
    """The response sending `events`; keep-alives are theirs (sent only while idle), so the
    library's own clock of pings is off."""
    return EventSourceResponse(events, headers=headers, ping=0, sep=SEPARATOR)
