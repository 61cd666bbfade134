"""The questions a session was asked: its first, then each follow-up, from its event log.

A session's index row keeps only its latest question; lists of sessions name a session by
its first and say how many follow-ups came after it. Each question begins a leg with a
`SessionStarted` that is not a resume, so the log holds them all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from engine.events import Event, SessionStarted, parse_event

if TYPE_CHECKING:
    from engine.config import Settings

_MARK = '"session_started"'


def questions_of(events: Iterable[Event]) -> list[str]:
    """Each question asked, in order (a resumed leg asks none)."""
    return [
        event.question
        for event in events
        if isinstance(event, SessionStarted) and not event.resumed and event.question.strip()
    ]


def stored_questions(settings: Settings, session_id: str) -> list[str]:
    """The questions in a session's stored log, parsing only the lines that can hold one."""
    from engine.protocol import is_session_id
    from engine.sessions_log import stored_lines

    if not is_session_id(session_id):  # never a path outside the data directory
        return []
    events: list[Event] = []
    for _number, line in stored_lines(settings, session_id):
        if _MARK in line:
            with contextlib.suppress(ValidationError, ValueError):
                events.append(parse_event(line))
    return questions_of(events)
