"""Stop a streamed reply as soon as it shows it is not the reply that was asked for.

A small model asked to answer from search results sometimes starts copying them back,
result header first. On a CPU server every copied token costs a tenth of a second or more,
and the copy is taken out again afterwards, so reading it to the token cap buys nothing. A
caller that can tell a wrong start from the text so far sets a watch around its model call;
the transport checks the streamed text against it and ends the stream when it fires. The reply
so far is returned with `STOPPED_EARLY` as its finish reason, so the caller can see why it is
short. A context variable carries the watch, because the call passes through LangChain's
model wrappers, which forward no callables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

STOPPED_EARLY = "stopped_early"
# Checking the text on every streamed token would cost more than it saves on short replies.
CHECK_EVERY_CHARS = 24

ReplyWatch = Callable[[str], bool]

_watch: ContextVar[ReplyWatch | None] = ContextVar("reply_watch", default=None)


@contextmanager
def stop_reply_when(watch: ReplyWatch | None) -> Iterator[None]:
    """Within the block, a streamed reply ends as soon as `watch(text so far)` is true."""
    token = _watch.set(watch)
    try:
        yield
    finally:
        _watch.reset(token)


def current_watch() -> ReplyWatch | None:
    """The watch set around the current call, if any."""
    return _watch.get()


class WatchedText:
    """The streamed text of one reply, checked against a watch every few characters."""

    def __init__(self, watch: ReplyWatch | None) -> None:
        self.watch = watch
        self.text = ""
        self._checked_at = 0

    def add(self, piece: str) -> bool:
        """Add a streamed piece; True when the watch says the reply should stop here."""
        if self.watch is None or not piece:
            return False
        self.text += piece
        if len(self.text) - self._checked_at < CHECK_EVERY_CHARS and "\n" not in piece:
            return False
        self._checked_at = len(self.text)
        return self.watch(self.text)
