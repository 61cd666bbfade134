"""The runs one server worker drives: each leg of a session is a task of its own.

A leg runs in the background, not in the request that asked for it, so a client that drops
its connection stops nothing; every event is stored in the session's log as it happens
(engine/sessions_log.py), which is what every stream reads. A worker that dies loses no
event and no checkpoint: any worker can resume the session from its last checkpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from engine.api.legs import Leg, leg_stream
from engine.api.stream import Pulses
from engine.config import Settings
from engine.events import Event, SessionStarted
from engine.nodes.deps import EngineDeps
from engine.run.runner import ResearchSession, drive, open_engine
from engine.run_lock import SessionHeld
from engine.sessions import record_session

T = TypeVar("T")
_log = logging.getLogger("deepresearch.api")


# At most this long a leg's graph waits for other sessions launched with it to announce
# themselves (a steady stream of new sessions does not hold it back longer).
ANNOUNCE_WAIT_SECONDS = 1.0
ANNOUNCING_LEGS = ("start", "resume")  # the legs whose first event says the session started


class SessionBusy(RuntimeError):
    """The session already has a leg running in this worker."""

    @property
    def detail(self) -> str:
        return "the session is already running in this worker"


class SessionHeldElsewhere(SessionBusy):
    """Another run holds the session (another process, another worker); the message names
    the holder."""

    @property
    def detail(self) -> str:
        return str(self)


class _Announcements:
    """Legs launched that have not yet announced their session (`SessionStarted`).

    A burst of sessions (fifty started at once) each get their first event out before any of
    them starts its graph: the engine's first steps of one session are CPU work that would
    otherwise come before the next session's first event. Counted from any thread (orders
    arrive on the server's), settled and awaited on the engine's loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._quiet: asyncio.Event | None = None

    def expect(self) -> None:
        with self._lock:
            self._count += 1

    def announced(self) -> None:
        """One expected leg announced its session (or ended without it); on the engine loop."""
        with self._lock:
            self._count -= 1
            quiet = self._count <= 0
        if quiet and self._quiet is not None:
            self._quiet.set()

    async def quiet(self, seconds: float) -> None:
        """Return once no launched leg is still to announce its session, or after `seconds`."""
        if self._quiet is None:
            self._quiet = asyncio.Event()
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            with self._lock:
                if self._count <= 0:
                    return
                self._quiet.clear()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quiet.wait(), left)


class SessionRuns:
    """Background legs by session id, run on an engine thread of their own.

    The graph, the checkpointer and every leg live on that thread's event loop, so work the
    engine does without awaiting (the offline model, parsing, verification) never stalls the
    server's loop: `/healthz` and the streams answer while fifty sessions research. Each
    session has a pulse that wakes its streams (on the server's loop) at each of its events.
    """

    def __init__(
        self,
        settings: Settings,
        deps: EngineDeps | None = None,
        *,
        notify: Callable[[str, str], None] | None = None,
    ) -> None:
        self._settings = settings
        self._deps = deps
        # Told ("started" | "pulse" | "settled", session id) on the engine thread (the engine
        # process passes them on to the server).
        self._notify = notify
        self._legs: dict[str, asyncio.Task[None]] = {}
        self._drivers: dict[str, ResearchSession] = {}
        self._pulses = Pulses()
        self._announcements = _Announcements()
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._engine_loop: asyncio.AbstractEventLoop | None = None
        self._server_loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._session_for: Callable[[str | None], ResearchSession] | None = None
        self._thread = threading.Thread(target=self._main, name="engine", daemon=True)

    # ---- lifecycle (called on the server's loop) ---------------------------------

    async def start(self) -> None:
        """Open the engine on its thread; its error (a bad CHECKPOINT_URL) is raised here."""
        self._server_loop = asyncio.get_running_loop()
        self._thread.start()
        await asyncio.to_thread(self._ready.wait)
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """Stop every leg (the sessions stay resumable from their checkpoints)."""
        if self._engine_loop is not None and self._stop is not None:
            self._engine_loop.call_soon_threadsafe(self._stop.set)
        await asyncio.to_thread(self._thread.join)

    def _main(self) -> None:
        asyncio.run(self._engine())

    async def _engine(self) -> None:
        self._engine_loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with open_engine(self._settings, deps=self._deps) as session_for:
                self._session_for = session_for
                self._ready.set()
                await self._stop.wait()
                legs = list(self._legs.values())
                for task in legs:
                    task.cancel()
                for task in legs:
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        except BaseException as exc:  # handed to start(), which raises it
            self._failure = exc
        finally:
            self._ready.set()

    async def _on_engine(self, work: Coroutine[Any, Any, T]) -> T:
        assert self._engine_loop is not None, "SessionRuns.start() was not awaited"
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._engine_loop))

    # ---- sessions (called on the server's loop) ------------------------------------

    def busy(self, session_id: str) -> bool:
        leg = self._legs.get(session_id)
        return leg is not None and not leg.done()

    async def launch(self, session_id: str | None, leg: Leg, *, auto_approve: bool = False) -> str:
        """Start `leg` on the session (a new one when `session_id` is None); its id."""
        announcing = leg[0] in ANNOUNCING_LEGS
        if announcing:
            self._announcements.expect()  # counted now: graphs already running wait for it

        async def launched() -> str:
            assert self._session_for is not None
            try:
                session = self._session_for(session_id)
                sid = session.session_id
                if self.busy(sid):
                    raise SessionBusy(sid)
                # Here, or in another live process (another worker): one run at once. The
                # claim holds until the leg settles, and the session's row says it runs
                # before its id is given out, so its events can be followed at once.
                try:
                    await session.claim()
                except SessionHeld as held:
                    raise SessionHeldElsewhere(str(held)) from None
                try:
                    await asyncio.to_thread(self._record_running, sid, leg)
                except BaseException:
                    session.release()
                    raise
            except BaseException:
                if announcing:
                    self._announcements.announced()
                raise
            self._drivers[sid] = session
            if self._notify is not None:
                self._notify("started", sid)  # before any of its pulses, on this same thread
            task = asyncio.create_task(self._drive(session, leg, auto_approve, announcing))
            task.add_done_callback(lambda done: self._settled(sid, done))
            self._legs[sid] = task
            return sid

        return await self._on_engine(launched())

    def _record_running(self, session_id: str, leg: Leg) -> None:
        kind, args = leg
        if kind == "start":
            record_session(
                self._settings,
                session_id,
                status="running",
                question=args["question"],
                mode=args["mode"],
            )
        else:
            record_session(self._settings, session_id, status="running")

    async def stage(self, session_id: str) -> str:
        async def staged() -> str:
            assert self._session_for is not None
            found: str = await self._session_for(session_id).stage()
            return found

        return await self._on_engine(staged())

    async def finished(self, session_id: str) -> None:
        """Wait for the session's current leg (and the legs it chains) to end."""

        async def ended() -> None:
            leg = self._legs.get(session_id)
            if leg is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.shield(leg)

        await self._on_engine(ended())

    async def cancel(self, session_id: str) -> bool:
        """Stop the session's running leg; False when this worker runs none."""

        async def cancelled() -> bool:
            if not self.busy(session_id):
                return False
            await self._drivers[session_id].cancel()
            return True

        return await self._on_engine(cancelled())

    def _settled(self, session_id: str, task: asyncio.Task[None]) -> None:
        """Forget a finished leg; one that raised is logged (its session stays resumable)."""
        if self._legs.get(session_id) is task:
            self._legs.pop(session_id, None)
            self._drivers.pop(session_id, None)
        if not task.cancelled() and task.exception() is not None:
            _log.error("session %s: run failed", session_id, exc_info=task.exception())
        if self._notify is not None:
            self._notify("settled", session_id)

    # ---- pulses --------------------------------------------------------------------

    async def _drive(
        self, session: ResearchSession, leg: Leg, auto_approve: bool, announcing: bool
    ) -> None:
        to_announce = announcing

        async def pulse(event: Event) -> None:
            nonlocal to_announce
            self._pulse_from_engine(session.session_id)
            if to_announce and isinstance(event, SessionStarted):
                to_announce = False
                self._announcements.announced()
                # The driver starts the graph once this returns: after the sessions launched
                # with this one have said they started too.
                await self._announcements.quiet(ANNOUNCE_WAIT_SECONDS)

        try:
            await drive(
                session, leg_stream(session, leg), auto_approve=auto_approve, on_event=pulse
            )
        finally:
            session.release()  # the claim `launch` took
            if to_announce:
                self._announcements.announced()
            self._pulse_from_engine(session.session_id)

    def _pulse_from_engine(self, session_id: str) -> None:
        if self._notify is not None:
            self._notify("pulse", session_id)
        if self._server_loop is not None and not self._server_loop.is_closed():
            self._server_loop.call_soon_threadsafe(self._pulses.wake, session_id)

    async def wait_for_pulse(self, session_id: str, seconds: float) -> None:
        """Return at the session's next event here, or after `seconds` (another worker's)."""
        await self._pulses.wait(session_id, seconds)
