"""The runs one server worker drives: each leg of a session is a task of its own.

A leg runs in the background, not in the request that asked for it, so a client that drops
its connection stops nothing; every event is stored in the session's log as it happens
(engine/sessions_log.py), which is what every stream reads. A worker that dies loses no
event and no checkpoint: any worker can resume the session from its last checkpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from engine.events import ClarificationRequested, Event, PlanProposed
from engine.protocol import PROCEED_ON_LIKELY_READING
from engine.runner import ResearchSession
from engine.schemas import PlanDecision

Leg = Callable[[ResearchSession], AsyncIterator[Event]]


async def drive(
    session: ResearchSession,
    stream: AsyncIterator[Event],
    *,
    auto_approve: bool,
    on_event: Callable[[Event], Awaitable[None]],
) -> None:
    """Read `stream` to its end; with `auto_approve`, go on past each pause as `run --yes`
    does: the plan approved as proposed, a clarifying question answered by proceeding."""
    current: AsyncIterator[Event] | None = stream
    while current is not None:
        follow: AsyncIterator[Event] | None = None
        async with contextlib.aclosing(current) as events:  # type: ignore[type-var]
            async for event in events:
                await on_event(event)
                if auto_approve and isinstance(event, ClarificationRequested):
                    follow = session.answer_clarification(PROCEED_ON_LIKELY_READING)
                elif auto_approve and isinstance(event, PlanProposed):
                    follow = session.review_plan(PlanDecision(action="approve"))
        current = follow


class SessionBusy(RuntimeError):
    """The session already has a leg running in this worker."""


class SessionRuns:
    """Background legs by session id, and a pulse per session that wakes its streams at each
    of its events (only its own: fifty streams do not all wake for every event)."""

    def __init__(self, session_for: Callable[[str | None], ResearchSession]) -> None:
        self._session_for = session_for
        self._legs: dict[str, asyncio.Task[None]] = {}
        self._drivers: dict[str, ResearchSession] = {}
        self._pulses: dict[str, asyncio.Event] = {}

    def busy(self, session_id: str) -> bool:
        leg = self._legs.get(session_id)
        return leg is not None and not leg.done()

    def launch(self, session_id: str | None, leg: Leg, *, auto_approve: bool = False) -> str:
        """Start `leg` on the session (a new one when `session_id` is None); its id."""
        session = self._session_for(session_id)
        if self.busy(session.session_id):
            raise SessionBusy(session.session_id)
        self._drivers[session.session_id] = session
        task = asyncio.create_task(self._drive(session, leg, auto_approve))
        self._legs[session.session_id] = task
        return session.session_id

    async def _drive(self, session: ResearchSession, leg: Leg, auto_approve: bool) -> None:
        async def pulse(_event: Event) -> None:
            self.pulse(session.session_id)

        try:
            await drive(session, leg(session), auto_approve=auto_approve, on_event=pulse)
        finally:
            self.pulse(session.session_id)

    def pulse(self, session_id: str) -> None:
        waiting = self._pulses.pop(session_id, None)
        if waiting is not None:
            waiting.set()

    async def wait_for_pulse(self, session_id: str, seconds: float) -> None:
        """Return at the session's next event here, or after `seconds` (another worker's)."""
        waiting = self._pulses.setdefault(session_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiting.wait(), seconds)

    async def finished(self, session_id: str) -> None:
        """Wait for the session's current leg (and the legs it chains) to end."""
        leg = self._legs.get(session_id)
        if leg is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(leg)

    async def cancel(self, session_id: str) -> bool:
        """Stop the session's running leg; False when this worker runs none."""
        if not self.busy(session_id):
            return False
        await self._drivers[session_id].cancel()
        return True

    async def close(self) -> None:
        """Stop every leg (the sessions stay resumable from their checkpoints)."""
        for task in self._legs.values():
            task.cancel()
        for task in self._legs.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
