"""The engine of `deepresearch serve` in a process of its own, beside the HTTP server.

The engine's own work (the offline model, parsing, verification, grounding) is CPU work that
holds Python's interpreter lock, so on a thread of the server it delays every request: a
health check waited hundreds of milliseconds with fifty sessions researching. In a process of
its own it takes nothing from the server, which only reads stored events and forwards orders.

The two talk over a pipe: the server sends orders (launch a leg, cancel, ask a session's
stage, wait for a leg to end, stop) and gets one reply per order; the engine sends a pulse
at each event of a session (streams read the event itself from the store) and a note when a
leg settles. The engine process dies with the server: when the pipe closes without a stop
order, it exits at once, as if killed with it, so its sessions resume elsewhere from their
checkpoints.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import threading
from typing import Any

from engine.api.legs import Leg
from engine.config import Settings

_log = logging.getLogger("deepresearch.api")
STOP_SECONDS = 60


class EngineProcessError(RuntimeError):
    """The engine process failed to start or stopped answering."""


class ProcessRuns:
    """`SessionRuns`' interface, with the engine in a child process."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._process: Any = None
        self._pipe: Any = None
        self._send_lock = threading.Lock()
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._running: set[str] = set()
        self._pulses: dict[str, asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reader: threading.Thread | None = None

    # ---- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Start the engine process; its start-up error (a bad CHECKPOINT_URL) is raised here."""
        self._loop = asyncio.get_running_loop()
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(
            target=engine_main, args=(self._settings, child), name="deepresearch-engine"
        )
        self._process.start()
        child.close()
        ready = await asyncio.to_thread(self._receive)
        if ready is None or ready[0] != "ready":
            await asyncio.to_thread(self._process.join, 5)
            raise EngineProcessError("the engine process stopped while starting")
        if ready[1] is not None:
            await asyncio.to_thread(self._process.join, 5)
            raise ready[1]
        self._reader = threading.Thread(target=self._read, name="engine-pipe", daemon=True)
        self._reader.start()

    async def close(self) -> None:
        """Stop every leg (the sessions stay resumable) and the engine process."""
        if self._process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            self._send(("stop", 0))
        await asyncio.to_thread(self._process.join, STOP_SECONDS)
        if self._process.is_alive():
            self._process.kill()
        self._pipe.close()

    # ---- orders ------------------------------------------------------------------

    async def _ask(self, *order: Any) -> Any:
        assert self._loop is not None, "ProcessRuns.start() was not awaited"
        number = next(self._ids)
        reply: asyncio.Future[Any] = self._loop.create_future()
        self._replies[number] = reply
        self._send((order[0], number, *order[1:]))
        return await reply

    def busy(self, session_id: str) -> bool:
        return session_id in self._running

    async def launch(self, session_id: str | None, leg: Leg, *, auto_approve: bool = False) -> str:
        sid: str = await self._ask("launch", session_id, leg, auto_approve)
        return sid

    async def stage(self, session_id: str) -> str:
        found: str = await self._ask("stage", session_id)
        return found

    async def finished(self, session_id: str) -> None:
        await self._ask("finished", session_id)

    async def cancel(self, session_id: str) -> bool:
        cancelled: bool = await self._ask("cancel", session_id)
        return cancelled

    async def wait_for_pulse(self, session_id: str, seconds: float) -> None:
        """Return at the session's next event, or after `seconds` (another worker's)."""
        waiting = self._pulses.setdefault(session_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiting.wait(), seconds)

    # ---- the pipe ----------------------------------------------------------------

    def _send(self, message: tuple[Any, ...]) -> None:
        with self._send_lock:
            self._pipe.send(message)

    def _receive(self) -> Any:
        try:
            return self._pipe.recv()
        except (EOFError, OSError):
            return None

    def _read(self) -> None:
        """Hand each message of the engine to the server's loop, until the pipe closes."""
        assert self._loop is not None
        while (message := self._receive()) is not None:
            if self._loop.is_closed():
                return
            self._loop.call_soon_threadsafe(self._handle, message)
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._engine_gone)

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "reply":
            _, number, result, error = message
            reply = self._replies.pop(number, None)
            if reply is not None and not reply.done():
                if error is not None:
                    reply.set_exception(error)
                else:
                    reply.set_result(result)
            return
        session_id = message[1]
        if kind == "started":
            self._running.add(session_id)
        elif kind == "settled":
            self._running.discard(session_id)
        waiting = self._pulses.pop(session_id, None)
        if waiting is not None:
            waiting.set()

    def _engine_gone(self) -> None:
        self._running.clear()
        for reply in self._replies.values():
            if not reply.done():
                reply.set_exception(EngineProcessError("the engine process stopped"))
        self._replies.clear()
        for waiting in self._pulses.values():
            waiting.set()


# ---- the engine process ----------------------------------------------------------


def engine_main(settings: Settings, pipe: Any) -> None:
    """The engine process: a `SessionRuns` driven by the server's orders over `pipe`."""
    asyncio.run(_serve_orders(settings, pipe))


async def _serve_orders(settings: Settings, pipe: Any) -> None:
    from engine.api.runs import SessionBusy, SessionRuns

    send_lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:
        with send_lock, contextlib.suppress(OSError, ValueError):
            pipe.send(message)

    runs = SessionRuns(settings, notify=lambda kind, sid: send((kind, sid)))
    try:
        await runs.start()
    except BaseException as exc:
        send(("ready", _picklable(exc)))
        return
    send(("ready", None))
    loop = asyncio.get_running_loop()
    orders: asyncio.Queue[Any] = asyncio.Queue()

    def read() -> None:
        while True:
            try:
                order = pipe.recv()
            except (EOFError, OSError):
                # The server is gone (killed): go with it, as one process would have.
                os._exit(1)
            loop.call_soon_threadsafe(orders.put_nowait, order)

    threading.Thread(target=read, name="server-pipe", daemon=True).start()
    pending: set[asyncio.Task[None]] = set()
    while True:
        order = await orders.get()
        if order[0] == "stop":
            break
        task = asyncio.create_task(_obey(runs, order, send, SessionBusy))
        pending.add(task)
        task.add_done_callback(pending.discard)
    await runs.close()


async def _obey(runs: Any, order: tuple[Any, ...], send: Any, busy: type[Exception]) -> None:
    kind, number, *args = order
    result: Any = None
    error: BaseException | None = None
    try:
        if kind == "launch":
            session_id, leg, auto_approve = args
            result = await runs.launch(session_id, leg, auto_approve=auto_approve)
        elif kind == "stage":
            result = await runs.stage(args[0])
        elif kind == "finished":
            await runs.finished(args[0])
        elif kind == "cancel":
            result = await runs.cancel(args[0])
    except busy as exc:
        error = exc
    except Exception as exc:
        _log.error("engine order %s failed", kind, exc_info=exc)
        error = _picklable(exc)
    send(("reply", number, result, error))


def _picklable(exc: BaseException) -> BaseException:
    """The error itself when it crosses the pipe whole, else a plain one with its message."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))  # noqa: S301 (our own object, never outside data)
    except Exception:
        return EngineProcessError(str(exc))
    return exc
