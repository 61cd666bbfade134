"""Elapsed time in the header: a clock while a run goes, what a finished run took.

A live run is timed by the app's clock; a resumed run goes on from the time its question had
taken, it does not start again at zero. A reopened session is timed from its stored events:
each leg's start (`SessionStarted.at`) to its last stamp (its end, its pause for review, its
units' finish times), summed over the legs of its last question, so the hours a stopped
session sat waiting to be resumed do not count. Logs written before events carried stamps
fall back on the index row (when the session was created and last changed, to the second).
Nothing is guessed: what cannot be told from the stored facts shows no elapsed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tui.presentation.formatting import format_clock

if TYPE_CHECKING:
    from engine.events import Event, ResearchUnitSummary

_ENDED_PHASES = {"done", "cancelled", "failed"}


def format_elapsed(seconds: float, *, final: bool) -> str:
    """M:SS (H:MM:SS past the hour), running or finished: one format, so that a time never
    changes its look as the run ends."""
    del final  # a finished run reads as the clock did
    return format_clock(seconds)


def _wall(stamp: str) -> float | None:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # the index writes UTC
    return moment.timestamp()


def stored_elapsed(events: Iterable[Event], created_at: str, updated_at: str) -> float | None:
    """How long a saved session's last question took, or None when unknown."""
    events = list(events)
    stamped = stamped_elapsed(events)
    if stamped is not None:
        return stamped
    return _row_elapsed(events, created_at, updated_at)


def stamped_elapsed(events: Iterable[Event]) -> float | None:
    """The last question's time from the events' own stamps: every leg from its start to
    its last stamp. None when a leg's start carries no stamp (a log from before stamps)."""
    from engine.events import SessionStarted

    total, start, last = 0.0, None, 0.0
    seen = False
    for event in events:
        if isinstance(event, SessionStarted):
            if event.at is None:
                return None
            if start is not None:  # the last leg stopped without a word (the app quit)
                total += last - start
            if not event.resumed:
                total = 0.0  # a new question is timed from zero
            start = last = event.at
            seen = True
            continue
        if start is None:
            continue
        last = max([last, *_stamps(event)])
        if _ends_a_run(event) and _stamp(event) is not None:
            total += last - start
            start = None
    if not seen:
        return None
    return total + (last - start if start is not None else 0.0)


def _stamp(event: Event) -> float | None:
    at = getattr(event, "at", None)
    return at if isinstance(at, float | int) else None


def _stamps(event: Event) -> list[float]:
    stamp = _stamp(event)
    stamps = [stamp] if stamp is not None else []
    for unit in _units_in(event):
        stamps.extend(t for t in (unit.started_at, unit.finished_at) if t is not None)
    return stamps


def _row_elapsed(events: list[Event], created_at: str, updated_at: str) -> float | None:
    """How long a saved session took from its question to its end, or None when unknown.

    `created_at` and `updated_at` are the session's index row: written when its question
    started and when it last changed status (its end, for an ended session). Its units' finish
    times are finer: they lengthen the span when the row's whole seconds would shorten it.
    """
    last_finish = _last_question_finish(events)
    if last_finish is None:
        return None
    start, end = _wall(created_at), _wall(updated_at)
    if start is None or end is None:
        return None
    if last_finish:
        end = max(end, last_finish)
    return max(0.0, end - start)


def _last_question_finish(events: Iterable[Event]) -> float | None:
    """The latest unit finish of the session's one question (0.0: no unit finished), or None
    when the session asked more than one question or its question has not ended."""
    from engine.events import SessionStarted

    questions, ended = 0, False
    last = 0.0
    for event in events:
        if isinstance(event, SessionStarted):
            ended = False
            if not event.resumed:
                questions += 1
                last = 0.0  # only the last question's units count
        elif _ends_a_run(event):
            ended = True
        for unit in _units_in(event):
            if unit.finished_at is not None:
                last = max(last, unit.finished_at)
    return last if ended and questions == 1 else None


def _ends_a_run(event: Event) -> bool:
    from engine.events import PhaseChanged, RunFailed, RunFinished

    return isinstance(event, RunFinished | RunFailed) or (
        isinstance(event, PhaseChanged) and event.phase in _ENDED_PHASES
    )


def _units_in(event: Event) -> list[ResearchUnitSummary]:
    from engine.events import ResearchUnitUpdated, RuntimeProgress

    if isinstance(event, ResearchUnitUpdated):
        return [event.unit]
    if isinstance(event, RuntimeProgress):
        return list(event.research_units)
    return []
