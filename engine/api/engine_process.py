"""The engine of `deepresearch serve` in processes of their own, beside the HTTP server.

The engine's own work (the offline model, parsing, verification, grounding) is CPU work that
holds Python's interpreter lock, so on a thread of the server it delays every request: a
health check waited hundreds of milliseconds with fifty sessions researching. In processes of
its own it takes nothing from the server, which only reads stored events and forwards orders.
A pool of them (`ENGINE_PROCESSES`) lets fifty sessions started at once queue behind a few
others each rather than behind all of them.

Each process talks to the server over a pipe: the server sends orders (launch a leg, cancel,
ask a session's stage, wait for a leg to end, stop) and gets one reply per order; the engine
sends a pulse at each event of a session (streams read the event itself from the store) and a
note when a leg starts and settles. A session's leg runs in one process; the server sends its
cancel and its wait there, and refuses a second leg of it until the first settled. Its next
leg may run in any process: a session lives in its checkpoints and event log, not in a process.

An engine process that dies (killed, crashed) is noticed when its pipe closes: its replies
fail, its sessions are no longer running here (they resume from their checkpoints) and another
process takes its place. An engine process dies with the server: when the pipe closes without
a stop order, it exits at once, as if killed with it, so its sessions resume elsewhere.
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
from engine.api.runs import SessionBusy
from engine.api.stream import Pulses
from engine.config import Settings

_log = logging.getLogger("deepresearch.api")
STOP_SECONDS = 60
# How long an order waits for a live engine process while a dead one is replaced.
REPLACE_WAIT_SECONDS = 120
# Pauses between attempts to start a replacement that failed to start.
RETRY_SECONDS = (1, 2, 5, 10, 30)
# Engine processes yield the cores to the server's own process: with every core busy on
# research, a health check or a stream's next frame must not wait behind a session's turn.
# (Processes of one terminal session share a scheduling group, where nice values count.)
ENGINE_NICENESS = 5


class EngineProcessError(RuntimeError):
    """An engine process failed to start or stopped answering."""


class _Engine:
    """One engine process, its end of the pipe and what it runs."""

    def __init__(self, slot: int, process: Any, pipe: Any) -> None:
        self.slot = slot
        self.process = process
        self.pipe = pipe
        self.send_lock = threading.Lock()
        self.replies: dict[int, asyncio.Future[Any]] = {}
        self.sessions: set[str] = set()  # whose leg runs here (started, not settled)
        self.launching = 0  # launches sent, not answered
        self.alive = True

    @property
    def load(self) -> int:
        return len(self.sessions) + self.launching

    def send(self, message: tuple[Any, ...]) -> None:
        with self.send_lock:
            self.pipe.send(message)

    def receive(self) -> Any:
        try:
            return self.pipe.recv()
        except (EOFError, OSError):
            return None


class ProcessRuns:
    """`SessionRuns`' interface, with the engine in a pool of child processes."""

    def __init__(self, settings: Settings, processes: int = 1) -> None:
        if processes < 1:
            raise ValueError("at least one engine process")
        self._settings = settings
        self._size = processes
        self._engines: list[_Engine | None] = [None] * processes
        self._owner: dict[str, _Engine] = {}  # session → the process running its leg
        self._ids = itertools.count(1)
        self._pulses = Pulses()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None  # set when a process joins the pool
        self._replacing: set[asyncio.Task[None]] = set()
        self._closing = False

    # ---- lifecycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Start the engine processes; a start-up error (a bad CHECKPOINT_URL) is raised here."""
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()
        started = await asyncio.gather(
            *(self._spawn(slot) for slot in range(self._size)), return_exceptions=True
        )
        failure = next((item for item in started if isinstance(item, BaseException)), None)
        for item in started:
            if isinstance(item, _Engine):
                self._join(item)
        if failure is not None:
            await self.close()
            raise failure

    async def _spawn(self, slot: int) -> _Engine:
        context = multiprocessing.get_context("spawn")
        pipe, child = context.Pipe()
        process = context.Process(
            target=engine_main, args=(self._settings, child), name=f"deepresearch-engine-{slot}"
        )
        process.start()
        child.close()
        engine = _Engine(slot, process, pipe)
        try:
            ready = await asyncio.to_thread(engine.receive)
        except asyncio.CancelledError:  # the server stops while this one starts
            process.kill()
            raise
        if ready is None or ready[0] != "ready" or ready[1] is not None:
            await asyncio.to_thread(process.join, 5)
            if process.is_alive():
                process.kill()
            pipe.close()
            if ready is not None and ready[0] == "ready" and ready[1] is not None:
                raise ready[1]
            raise EngineProcessError("the engine process stopped while starting")
        return engine

    def _join(self, engine: _Engine) -> None:
        """Put a started process in its slot and listen to it."""
        assert self._changed is not None
        self._engines[engine.slot] = engine
        reader = threading.Thread(
            target=self._read, args=(engine,), name=f"engine-pipe-{engine.slot}", daemon=True
        )
        reader.start()
        self._changed.set()

    async def close(self) -> None:
        """Stop every leg (the sessions stay resumable) and every engine process."""
        self._closing = True
        for task in list(self._replacing):
            task.cancel()
        engines = [engine for engine in self._engines if engine is not None]
        for engine in engines:
            with contextlib.suppress(OSError, ValueError):
                engine.send(("stop", 0))
        await asyncio.gather(
            *(asyncio.to_thread(engine.process.join, STOP_SECONDS) for engine in engines)
        )
        for engine in engines:
            if engine.process.is_alive():
                engine.process.kill()
            engine.pipe.close()

    # ---- which process ------------------------------------------------------------

    @property
    def pids(self) -> list[int]:
        """The engine processes alive now, by slot."""
        return [e.process.pid for e in self._engines if e is not None and e.alive]

    def running_in(self, session_id: str) -> int | None:
        """The engine process running the session's leg, or None."""
        engine = self._owner.get(session_id)
        return engine.process.pid if engine is not None else None

    async def _least_loaded(self) -> _Engine:
        """The live process with the fewest legs (a dead one's replacement is awaited)."""
        assert self._changed is not None, "ProcessRuns.start() was not awaited"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REPLACE_WAIT_SECONDS
        while True:
            live = [e for e in self._engines if e is not None and e.alive]
            if live:
                return min(live, key=lambda engine: engine.load)
            if self._closing or loop.time() > deadline:
                raise EngineProcessError("no engine process is running")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), deadline - loop.time())

    # ---- orders ------------------------------------------------------------------

    async def _ask(self, engine: _Engine, *order: Any) -> Any:
        assert self._loop is not None, "ProcessRuns.start() was not awaited"
        if not engine.alive:
            raise EngineProcessError("the engine process stopped")
        number = next(self._ids)
        reply: asyncio.Future[Any] = self._loop.create_future()
        engine.replies[number] = reply
        try:
            engine.send((order[0], number, *order[1:]))
        except (OSError, ValueError):
            engine.replies.pop(number, None)
            raise EngineProcessError("the engine process stopped") from None
        return await reply

    def busy(self, session_id: str) -> bool:
        return session_id in self._owner

    async def launch(self, session_id: str | None, leg: Leg, *, auto_approve: bool = False) -> str:
        if session_id is not None and session_id in self._owner:
            raise SessionBusy(session_id)
        engine = await self._least_loaded()
        if session_id is not None:
            # Held for this process from now: a second leg asked meanwhile is refused.
            self._owner[session_id] = engine
        engine.launching += 1
        try:
            sid: str = await self._ask(engine, "launch", session_id, leg, auto_approve)
        except BaseException:
            if session_id is not None and session_id not in engine.sessions:
                self._release(session_id, engine)
            raise
        finally:
            engine.launching -= 1
        return sid

    def _release(self, session_id: str, engine: _Engine) -> None:
        """The session no longer runs (nor is about to run) in `engine`."""
        if self._owner.get(session_id) is engine:
            del self._owner[session_id]

    async def stage(self, session_id: str) -> str:
        engine = self._owner.get(session_id) or await self._least_loaded()
        found: str = await self._ask(engine, "stage", session_id)
        return found

    async def finished(self, session_id: str) -> None:
        """Wait for the session's leg (and the legs it chains) to end, here or by its death."""
        engine = self._owner.get(session_id)
        if engine is None:
            return
        with contextlib.suppress(EngineProcessError):
            await self._ask(engine, "finished", session_id)

    async def cancel(self, session_id: str) -> bool:
        """Stop the session's leg in the process running it; False when none runs it."""
        engine = self._owner.get(session_id)
        if engine is None:
            return False
        try:
            cancelled: bool = await self._ask(engine, "cancel", session_id)
        except EngineProcessError:
            return False  # its process died meanwhile: nothing runs it any more
        return cancelled

    async def wait_for_pulse(self, session_id: str, seconds: float) -> None:
        """Return at the session's next event, or after `seconds` (another worker's)."""
        await self._pulses.wait(session_id, seconds)

    # ---- the pipes ---------------------------------------------------------------

    def _read(self, engine: _Engine) -> None:
        """Hand each message of `engine` to the server's loop, until its pipe closes."""
        assert self._loop is not None
        while (message := engine.receive()) is not None:
            if self._loop.is_closed():
                return
            self._loop.call_soon_threadsafe(self._handle, engine, message)
        if not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._engine_gone, engine)

    def _handle(self, engine: _Engine, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "reply":
            _, number, result, error = message
            reply = engine.replies.pop(number, None)
            if reply is not None and not reply.done():
                if error is not None:
                    reply.set_exception(error)
                else:
                    reply.set_result(result)
            return
        session_id = message[1]
        if kind == "started":
            engine.sessions.add(session_id)
            self._owner[session_id] = engine
        elif kind == "settled":
            engine.sessions.discard(session_id)
            self._release(session_id, engine)
        self._pulses.wake(session_id)

    def _engine_gone(self, engine: _Engine) -> None:
        """A process's pipe closed: it stopped (or was killed). Its legs ended with it; their
        sessions resume from their checkpoints. Unless the server is stopping, another
        process takes its place."""
        engine.alive = False
        for session_id in [sid for sid, owner in self._owner.items() if owner is engine]:
            del self._owner[session_id]
        engine.sessions.clear()
        for reply in engine.replies.values():
            if not reply.done():
                reply.set_exception(EngineProcessError("the engine process stopped"))
        engine.replies.clear()
        self._pulses.wake_all()  # streams look again: a dead leg's session is interrupted
        if self._closing or self._engines[engine.slot] is not engine:
            return
        _log.error(
            "engine process %s stopped (exit code %s); starting another; its sessions "
            "resume from their last checkpoints",
            engine.process.pid,
            engine.process.exitcode,
        )
        task = asyncio.get_running_loop().create_task(self._replace(engine))
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _replace(self, dead: _Engine) -> None:
        await asyncio.to_thread(dead.process.join, 5)
        if dead.process.is_alive():
            dead.process.kill()  # its pipe is gone: it can take no order any more
            await asyncio.to_thread(dead.process.join, 5)
        with contextlib.suppress(OSError):
            dead.pipe.close()
        for pause in itertools.chain((0,), RETRY_SECONDS, itertools.repeat(RETRY_SECONDS[-1])):
            await asyncio.sleep(pause)
            if self._closing:
                return
            try:
                engine = await self._spawn(dead.slot)
            except Exception as exc:
                _log.error("engine process %s did not start again: %s", dead.slot, exc)
                continue
            if self._closing:
                with contextlib.suppress(OSError, ValueError):
                    engine.send(("stop", 0))
                await asyncio.to_thread(engine.process.join, STOP_SECONDS)
                engine.pipe.close()
                return
            self._join(engine)
            return


# ---- the engine process ----------------------------------------------------------


def engine_main(settings: Settings, pipe: Any) -> None:
    """The engine process: a `SessionRuns` driven by the server's orders over `pipe`."""
    with contextlib.suppress(OSError):
        os.nice(ENGINE_NICENESS)
    asyncio.run(_serve_orders(settings, pipe))


async def _serve_orders(settings: Settings, pipe: Any) -> None:
    from engine.api.runs import SessionRuns

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
