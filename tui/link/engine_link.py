"""Runs the engine in workers and feeds its events to the bridge.

One long-lived worker ("session") holds the session open, so the session's context is entered
and left in the same task; each driver call (start, answer, review, resume) runs in the named,
exclusive "engine" worker. Workers only post messages; no widget is touched from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import Worker

from tui.presentation.failures import describe_failure

if TYPE_CHECKING:
    from engine.events import Event
    from engine.protocol import SessionDriver
    from tui.link.backend import Backend
    from tui.link.bridge import EventBridge

# How long a cancelled engine may take to wind down before its worker is cancelled outright.
CANCEL_GRACE_SECONDS = 10.0

DriverCall = Callable[["SessionDriver"], AsyncIterator["Event"]]

_frozen = False


def freeze_long_lived_objects() -> None:
    """Exempt everything alive now from later garbage collections (once per process).

    Called when the first session has opened: the engine's LangChain stack, the app and its
    widgets are loaded and live as long as the process. A full collection otherwise walks all
    of them again in the middle of a run, a pause of tens of milliseconds (hundreds with the
    engine loaded) in which the screen cannot draw.
    """
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


class EngineCrashed(Message, bubble=False):
    """The engine raised instead of reporting `RunFailed`; `reason` is already sanitized."""

    def __init__(self, reason: str, epoch: int = 0) -> None:
        super().__init__()
        self.reason = reason
        self.epoch = epoch


class EngineLink:
    def __init__(self, app: App[Any], backend: Backend) -> None:
        self.app = app
        self.backend = backend
        self.driver: SessionDriver | None = None
        self.session_id: str | None = None
        self._opened: asyncio.Future[SessionDriver] | None = None
        self._closing: asyncio.Event | None = None
        self._host: Worker[None] | None = None
        self.call_worker: Worker[None] | None = None
        self.bridge: EventBridge | None = None
        # Which session is on screen: every close starts a new epoch, and messages posted
        # for an older one are dropped by the screen.
        self.epoch = 0

    @property
    def is_open(self) -> bool:
        return self._opened is not None

    @property
    def running(self) -> bool:
        return self.call_worker is not None and not self.call_worker.is_finished

    def open(self, session_id: str | None) -> None:
        """Open a new session (None) or a saved one, closing the current one first."""
        self._shut()
        loop = asyncio.get_running_loop()
        self._opened = loop.create_future()
        self._closing = asyncio.Event()
        self.session_id = session_id
        self._host = self.app.run_worker(
            self._host_session(session_id, self._opened, self._closing),
            name="session",
            group="session",
            exclusive=True,
            exit_on_error=False,
        )

    def use_new_settings(self) -> None:
        """Settings changed: the next call opens the session again, under them (a running
        call goes on under the settings it started with)."""
        if not self.running:
            self._shut()

    def close(self) -> None:
        """Leave the session on screen: its run stops and its late messages are dropped."""
        self.epoch += 1
        self._shut()

    def _shut(self) -> None:
        if self.call_worker is not None:
            self.call_worker.cancel()
            self.call_worker = None
        if self._closing is not None:
            self._closing.set()
        self._opened = self._closing = None
        self.driver = None

    async def _host_session(
        self,
        session_id: str | None,
        opened: asyncio.Future[SessionDriver],
        closing: asyncio.Event,
    ) -> None:
        try:
            async with self.backend.open_session(session_id) as driver:
                self.driver = driver
                self.session_id = driver.session_id
                if not opened.done():
                    opened.set_result(driver)
                freeze_long_lived_objects()
                await closing.wait()
        except Exception as error:
            if not opened.done():
                opened.set_exception(error)
            else:
                raise
        finally:
            if self.driver is not None and opened is self._opened:
                self.driver = None

    def run(self, call: DriverCall, target: MessagePump) -> Worker[None]:
        """Run one driver call; a newer call replaces a running one."""
        # The bridge loads the event models: imported with the first call, not the first frame.
        from tui.link.bridge import EventBridge

        if self._opened is None:
            self.open(self.session_id)
        assert self._opened is not None
        self.bridge = EventBridge(target, self.epoch)
        self.call_worker = self.app.run_worker(
            self._run_call(call, self._opened, self.bridge),
            name="engine",
            group="engine",
            exclusive=True,
            exit_on_error=False,
        )
        return self.call_worker

    async def _run_call(
        self, call: DriverCall, opened: asyncio.Future[SessionDriver], bridge: EventBridge
    ) -> None:
        from tui.link.bridge import StreamClosed

        target = bridge.target
        try:
            driver = await asyncio.shield(opened)
            await bridge.pump(call(driver))
        except asyncio.CancelledError:
            closed = StreamClosed(cancelled=True)
            closed.epoch = bridge.epoch
            target.post_message(closed)
            raise
        except Exception as error:
            if opened.done() and opened.exception() is not None:
                # The session never opened; the next call tries again.
                self._opened = None
            target.post_message(EngineCrashed(describe_failure(error), bridge.epoch))
        else:
            closed = StreamClosed()
            closed.epoch = bridge.epoch
            target.post_message(closed)

    async def cancel(self) -> None:
        """Stop the call in progress; the session stays open and resumable.

        The driver is asked first: the engine then records the session as interrupted and
        ends its stream with the cancelled phase. Cancelling the worker first would skip that
        bookkeeping, so the worker is cancelled only if the engine does not stop in time.
        """
        worker, driver = self.call_worker, self.driver
        if worker is None or worker.is_finished:
            return
        if driver is not None:
            await driver.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker.wait(), CANCEL_GRACE_SECONDS)
        if not worker.is_finished:
            worker.cancel()
