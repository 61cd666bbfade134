"""Drop engine messages that belong to a session the person has left.

Each message carries the epoch of the session that was on screen when it was posted (see
`EngineLink.epoch`). A handler wrapped here ignores a message from an older epoch: a run still
winding down after "new session" or "reopen" must never paint its events into the next one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

R = TypeVar("R")


class _HasLink(Protocol):
    link: Any


def for_session_on_screen(
    handler: Callable[[Any, Any], R],
) -> Callable[[Any, Any], R | None]:
    @functools.wraps(handler)
    def guarded(screen: _HasLink, message: Any) -> R | None:
        if getattr(message, "epoch", screen.link.epoch) != screen.link.epoch:
            return None
        return handler(screen, message)

    return guarded
