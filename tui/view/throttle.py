"""Run an expensive refresh at most once per interval, and always once after the last request.

A flood of engine events asks for the same refresh (the domain filter's options, a re-sort)
many times a second; doing it every time stalls the message loop, doing it late is invisible.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer


class Throttle:
    """`request()` runs `action` now if it has not run within `interval`, else once later."""

    def __init__(
        self,
        owner: MessagePump,
        interval: float,
        action: Callable[[], None],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.owner = owner
        self.interval = interval
        self.action = action
        self.clock = clock
        self._last_run: float | None = None
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        return self._timer is not None

    def request(self) -> None:
        if self._timer is not None:
            return  # the scheduled run will see this request's data too
        now = self.clock()
        wait = 0.0 if self._last_run is None else self._last_run + self.interval - now
        if wait <= 0:
            self._run()
        else:
            self._timer = self.owner.set_timer(wait, self._run)

    def flush(self) -> None:
        """Run a pending request now (e.g. before the data it refreshes is read)."""
        if self._timer is not None:
            self._run()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _run(self) -> None:
        self.cancel()
        self._last_run = self.clock()
        self.action()
