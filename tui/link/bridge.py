"""The one place engine events become Textual messages.

Every other part of the app sees typed messages, never raw events. High-frequency facts are
coalesced so a fast engine cannot flood the message loop: progress and usage messages replace a
queued one of the same kind (`can_replace`); unit states (latest per unit), evidence and tool
calls are buffered with one wake-up message per batch. A batch holds at most
`MAX_ITEMS_PER_MESSAGE` items, so no single handler runs long enough to stall the screen; a
full batch is followed by a new one, in stream order.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from engine.citations.evidence import EvidenceRecord
from engine.event_text import terminal_safe_event
from engine.events import (
    BudgetReached,
    ClarificationRequested,
    Event,
    EvidenceAdded,
    ModelCallProgress,
    ModelSwitched,
    PhaseChanged,
    PlanApproved,
    PlanProposed,
    ReportDelta,
    ReportReady,
    ReportReviewed,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RouteDecided,
    RunFailed,
    RunFinished,
    RuntimeProgress,
    SessionStarted,
    ToolCalled,
    UsageUpdated,
)
from engine.progress_text import describe_review

# Yield to the message loop at least this often while pumping a stream that never awaits.
_YIELD_EVERY_SECONDS = 0.02
# Items one wake-up message carries at most: a burst of 2,000 records becomes 20 messages the
# screen handles one at a time, drawing and ticking timers between them, instead of one
# handler that lays out 2,000 rows at once.
MAX_ITEMS_PER_MESSAGE = 100

T = TypeVar("T")


class EngineMessage(Message, bubble=False):
    """Base of every message the bridge posts; aimed at one screen, so it does not bubble.

    `epoch` names the session on screen when the message was posted: a message from a session
    the person has since left (new session, reopened one) is dropped, never mixed in.
    """

    epoch = 0


class SessionBegan(EngineMessage):
    def __init__(self, event: SessionStarted) -> None:
        super().__init__()
        self.event = event


class PhaseUpdated(EngineMessage):
    def __init__(self, event: PhaseChanged) -> None:
        super().__init__()
        self.event = event


class ClarificationAsked(EngineMessage):
    def __init__(self, event: ClarificationRequested) -> None:
        super().__init__()
        self.event = event


class PlanArrived(EngineMessage):
    def __init__(self, event: PlanProposed) -> None:
        super().__init__()
        self.event = event


class PlanAccepted(EngineMessage):
    """The person's approval of the plan research runs on (with their edits, if any)."""

    def __init__(self, event: PlanApproved) -> None:
        super().__init__()
        self.event = event


class RouteChosen(EngineMessage):
    def __init__(self, event: RouteDecided) -> None:
        super().__init__()
        self.event = event


class ProgressUpdated(EngineMessage):
    """The supervisor runtime's latest decision; only the newest one matters, except that a
    gate decision is never replaced by a later pass that did not judge the gate."""

    def __init__(self, event: RuntimeProgress) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        if not isinstance(message, ProgressUpdated):
            return False
        decided = message.event.quality_gate_status != "none"
        return not decided or self.event.quality_gate_status != "none"


class UsageChanged(EngineMessage):
    """Token totals; only the newest one matters."""

    def __init__(self, event: UsageUpdated) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, UsageChanged)


class ModelCallUpdated(EngineMessage):
    """A long model call's liveness; only the newest one matters."""

    def __init__(self, event: ModelCallProgress) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ModelCallUpdated)


class _Batch(Generic[T]):
    """Items of one wake-up message; it takes items until drained or full.

    Items are keyed: a newer item with the key of a queued one replaces it (latest wins, in
    the first one's place). Plain batches give every item a key of its own.
    """

    def __init__(self, limit: int) -> None:
        self._items: dict[object, T] = {}
        self._limit = limit
        self.closed = False

    def accepts(self, key: object) -> bool:
        return not self.closed and (len(self._items) < self._limit or key in self._items)

    def add(self, key: object, item: T) -> None:
        self._items[key] = item

    def drain(self) -> list[T]:
        """Every item, once; later items go to a new batch with its own wake-up."""
        self.closed = True
        items, self._items = self._items, {}
        return list(items.values())


class _Batcher(Generic[T]):
    """Opens batches and posts one wake-up per batch (`wake`), in the order items came."""

    def __init__(
        self, wake: Callable[[_Batch[T]], None], limit: int = MAX_ITEMS_PER_MESSAGE
    ) -> None:
        self._wake = wake
        self._limit = limit
        self._open: _Batch[T] | None = None
        self._count = 0

    def add(self, item: T, key: object = None) -> None:
        """Queue an item; `key` None gives it a key of its own (nothing replaces it)."""
        if key is None:
            self._count += 1
            key = self._count
        batch = self._open
        if batch is None or not batch.accepts(key):
            batch = self._open = _Batch(self._limit)
            self._wake(batch)
        batch.add(key, item)


class UnitsUpdated(EngineMessage):
    """Research units changed; `drain()` takes each changed unit's latest state.

    One wake-up per batch, not one message per unit: 200 units starting at once would
    otherwise be 200 dispatches before the screen could draw.
    """

    def __init__(self, batch: _Batch[ResearchUnitSummary]) -> None:
        super().__init__()
        self._batch = batch

    def drain(self) -> list[ResearchUnitSummary]:
        return self._batch.drain()


class EvidenceArrived(EngineMessage):
    """New ledger records are waiting; `drain()` takes every record queued so far."""

    def __init__(self, batch: _Batch[EvidenceRecord]) -> None:
        super().__init__()
        self._batch = batch

    def drain(self) -> list[EvidenceRecord]:
        return self._batch.drain()


class ToolCallsLogged(EngineMessage):
    """New tool calls are waiting; `drain()` takes every call queued so far."""

    def __init__(self, batch: _Batch[ToolCalled]) -> None:
        super().__init__()
        self._batch = batch

    def drain(self) -> list[ToolCalled]:
        return self._batch.drain()


class ReportWritten(EngineMessage):
    """A piece of the report as the writer writes it (before verification)."""

    def __init__(self, event: ReportDelta) -> None:
        super().__init__()
        self.event = event


class ReportArrived(EngineMessage):
    def __init__(self, event: ReportReady) -> None:
        super().__init__()
        self.event = event


class RunFailedNotice(EngineMessage):
    """The engine reported a failure (its text is already sanitized by the engine)."""

    def __init__(self, event: RunFailed) -> None:
        super().__init__()
        self.event = event


class RunEnded(EngineMessage):
    def __init__(self, event: RunFinished) -> None:
        super().__init__()
        self.event = event


class StreamClosed(EngineMessage):
    """A driver call stopped yielding: it paused for a decision, finished, or was cancelled."""

    def __init__(self, *, cancelled: bool = False) -> None:
        super().__init__()
        self.cancelled = cancelled


def _model_switched(event: ModelSwitched) -> EngineMessage:
    """Said where the model call's progress is: which model now answers, and why."""
    detail = (
        f"{event.from_model} {event.reason}; {event.to_model} at {event.to_endpoint} takes over"
    )
    switched = ModelCallProgress(
        role=event.role, endpoint=event.to_endpoint, state="retrying", detail=detail
    )
    return ModelCallUpdated(switched)


class BudgetHit(EngineMessage):
    """Research stops at a cap: the header says so as a phase, the run's end says which."""

    def __init__(self, event: BudgetReached) -> None:
        super().__init__()
        self.event = event
        self.phase = PhaseUpdated(PhaseChanged(phase="researching", detail=event.detail))


def _report_reviewed(event: ReportReviewed) -> EngineMessage:
    """The writing phase goes on; the header says which review round it is in."""
    return PhaseUpdated(PhaseChanged(phase="writing", detail=describe_review(event)))


# The message each event becomes, when it is not batched (evidence, tool calls, unit states).
# An event not named here (a metric) stays in the engine's log and is not shown.
_MESSAGE_FOR: dict[type[Event], Callable[[Any], EngineMessage]] = {
    SessionStarted: SessionBegan,
    PhaseChanged: PhaseUpdated,
    ClarificationRequested: ClarificationAsked,
    PlanProposed: PlanArrived,
    PlanApproved: PlanAccepted,
    RouteDecided: RouteChosen,
    RuntimeProgress: ProgressUpdated,
    UsageUpdated: UsageChanged,
    ModelCallProgress: ModelCallUpdated,
    ModelSwitched: _model_switched,
    BudgetReached: BudgetHit,
    ReportReviewed: _report_reviewed,
    ReportDelta: ReportWritten,
    ReportReady: ReportArrived,
    RunFailed: RunFailedNotice,
    RunFinished: RunEnded,
}


class EventBridge:
    """Posts one message (or one batch wake-up) per engine event to a target screen."""

    def __init__(self, target: MessagePump, epoch: int = 0) -> None:
        self.target = target
        self.epoch = epoch
        self._evidence: _Batcher[EvidenceRecord] = _Batcher(
            lambda batch: self._post(EvidenceArrived(batch))
        )
        self._tool_calls: _Batcher[ToolCalled] = _Batcher(
            lambda batch: self._post(ToolCallsLogged(batch))
        )
        self._units: _Batcher[ResearchUnitSummary] = _Batcher(
            lambda batch: self._post(UnitsUpdated(batch))
        )
        self.events_seen = 0

    def post(self, event: Event) -> None:
        """Translate one event; unknown-to-the-UI facts (metrics) are dropped here.

        Every text in it is made terminal-safe first: claims, tool results and the report
        quote documents and models, and the screen must draw them, never obey them.
        """
        self.events_seen += 1
        event = terminal_safe_event(event)
        if isinstance(event, RuntimeProgress) and event.research_units:
            # Units reported inside progress join the same latest-wins batch as unit updates,
            # so an older progress can never overwrite a newer unit state on screen.
            for unit in event.research_units:
                self._units.add(unit, key=unit.id)
        message = self._translate(event)
        if message is not None:
            self._post(message)

    def _post(self, message: EngineMessage) -> None:
        message.epoch = self.epoch
        self.target.post_message(message)

    def _translate(self, event: Event) -> EngineMessage | None:
        match event:
            case EvidenceAdded(record=record):
                self._evidence.add(record)
            case ToolCalled():
                self._tool_calls.add(event)
            case ResearchUnitUpdated(unit=unit):
                self._units.add(unit, key=unit.id)
            case _:
                make = _MESSAGE_FOR.get(type(event))
                return make(event) if make is not None else None
        return None

    async def pump(self, stream: AsyncIterator[Event]) -> None:
        """Post every event of a driver call, yielding to the UI so it never stalls."""
        last_yield = time.monotonic()
        async for event in stream:
            self.post(event)
            now = time.monotonic()
            if now - last_yield >= _YIELD_EVERY_SECONDS:
                await asyncio.sleep(0)
                last_yield = time.monotonic()
