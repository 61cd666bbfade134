"""Sessions: run the research graph and turn its stream into the typed events of engine.events.

`open_session(settings, session_id)` owns a checkpointer (engine.checkpoints: SQLite in DATA_DIR,
or PostgreSQL when CHECKPOINT_URL is set); `open_engine` shares one among many sessions (the
HTTP API). The session id is the LangGraph thread id, so a second process resumes
where the first stopped. Nodes and tools emit events on the custom stream and are passed
through; pauses (clarification, plan review) are read from the checkpoint after the stream
ends, so they are announced exactly once and re-announced by `resume()`. Errors reach the
front end sanitized, with `resumable=True`: the checkpoint survives them.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from engine import run_lock
from engine.budget import Caps, Meter, Spend, metering
from engine.checkpoints import checkpointer
from engine.citations.evidence_keys import record_key
from engine.config import ResearchMode, Settings
from engine.events import (
    ClarificationRequested,
    Event,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    RunFailed,
    RunFinished,
    SessionStarted,
    _Event,
)
from engine.graph import build_graph
from engine.logs import configure_logging, get_logger
from engine.nodes.deps import EngineDeps, default_deps
from engine.nodes.failures import sanitize_run_error
from engine.nodes.verify import report_ready_event
from engine.protocol import PROCEED_ON_LIKELY_READING
from engine.run.pauses import pause_events, pause_status, resumed_phase
from engine.run.tracing import session_tracer
from engine.run.unit_tracker import UnitTracker
from engine.run.usage_tracker import UsageTracker
from engine.schemas import PlanDecision
from engine.sessions import record_session
from engine.sessions_log import logged, logged_evidence_keys, run_end_logged, stored_spend
from engine.sessions_state import evidence_of, is_finished, report_saved_here

_log = get_logger("runner")
# The main graph's own steps are few; researchers carry their own explicit limits.
GRAPH_RECURSION_LIMIT = 10_000


def new_session_id() -> str:
    return f"{datetime.now().strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


@dataclass
class _Leg:
    """What the runner follows of one leg: its phase, its units, and how it ended."""

    phase: str = ""
    units: UnitTracker = field(default_factory=UnitTracker)
    # Set once the graph's stream ended, failed or was cancelled; else the reader stopped.
    settled: bool = False
    outcome: str = "interrupted"  # or "cancelled", "failed", "ended"

    def see(self, event: Event) -> None:
        self.units.see(event)
        if isinstance(event, PhaseChanged):
            self.phase = event.phase


class ResearchSession:
    """One session (one LangGraph thread); implements `engine.protocol.SessionDriver`."""

    def __init__(
        self, settings: Settings, graph: Any, session_id: str, deps: EngineDeps | None = None
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.session_id = session_id
        # What the graph's context-reading nodes use; None: the settings' defaults (deps_of).
        self.deps = deps
        self._producer: asyncio.Task[None] | None = None
        self._writing: asyncio.Future[None] | None = None
        self._cancelled = False
        self._question = ""
        self._mode: ResearchMode = settings.research_mode
        self.last_report: ReportReady | None = None
        # The session's caps: the settings', or raised for this session (`--budget-usd`).
        self.caps = Caps(tokens=settings.budget_tokens, usd=settings.budget_usd)
        # A session this object created has spent nothing before its first leg.
        self.fresh = False

    @property
    def config(self) -> dict[str, Any]:
        return {
            "configurable": {"thread_id": self.session_id},
            "recursion_limit": GRAPH_RECURSION_LIMIT,
        }

    # ---- the SessionDriver API -----------------------------------------------------

    def start(self, question: str, *, mode: ResearchMode = "auto") -> AsyncIterator[Event]:
        return self._leg(self._start(question, mode))

    def answer_clarification(self, answer: str) -> AsyncIterator[Event]:
        return self._leg(self._resume_with(answer))

    def review_plan(self, decision: PlanDecision) -> AsyncIterator[Event]:
        return self._leg(self._resume_with(decision.model_dump(mode="json")))

    def resume(self) -> AsyncIterator[Event]:
        return self._leg(self._resume())

    async def claim(self) -> None:
        """Make this driver the session's one live run until `release` (claims count).

        Raises `run_lock.SessionHeld`, naming the holder, when another run has it: another
        process on this machine, another worker sharing CHECKPOINT_URL, or another driver here.
        """
        await asyncio.to_thread(run_lock.claim, self.settings, self.session_id, self)

    def release(self) -> None:
        run_lock.unclaim(self.settings, self.session_id, self)

    def _leg(self, stream: AsyncIterator[Event]) -> AsyncIterator[Event]:
        # Every door's events are stored, so any session reopens whole from typed data; a
        # refused leg stores nothing: the log belongs to the run that holds the session.
        return self._claimed(logged(self.settings, self.session_id, stream))

    async def _claimed(self, stream: AsyncIterator[Event]) -> AsyncGenerator[Event, None]:
        try:
            await self.claim()
        except run_lock.SessionHeld as held:
            yield RunFailed(
                error=str(held),
                phase="",
                resumable=False,
                session_id=self.session_id,
                at=time.time(),
            )
            return
        try:
            async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
                async for event in events:
                    yield event
        finally:
            self.release()

    async def _start(self, question: str, mode: ResearchMode) -> AsyncGenerator[Event, None]:
        from langchain_core.messages import HumanMessage

        self._question, self._mode = question, mode
        graph_input = {"question": question, "mode": mode, "messages": [HumanMessage(question)]}
        row = {"status": "running", "question": question, "mode": mode}
        started = self._started(resumed=False)
        async with contextlib.aclosing(self._run(graph_input, row, started)) as stream:
            async for event in stream:
                yield event

    async def _resume(self) -> AsyncIterator[Event]:
        snapshot = await self.graph.aget_state(self.config, subgraphs=True)
        if snapshot.created_at is None:
            # Nothing was ever checkpointed under this id: say so rather than "finish" it.
            yield RunFailed(
                error=f"no saved session {self.session_id!r}; `deepresearch sessions` lists them",
                phase="",
                resumable=False,
                session_id=self.session_id,
            )
            return
        values = snapshot.values or {}
        self._question = values.get("question", "")
        self._mode = values.get("mode") or self._mode
        yield self._started(resumed=True)
        # A process killed after a checkpoint may not have stored the evidence it holds: the
        # log keeps each piece once, so only what it lacks is added.
        for evidence in await self._untold_evidence(snapshot):
            yield evidence
        if snapshot.interrupts:
            for event in await self._announce_pause(snapshot.interrupts):
                yield event
            return
        if is_finished(snapshot):
            async with contextlib.aclosing(self._resume_finished(values)) as stream:
                async for event in stream:
                    yield event
            return
        # Tasks that finished before the kill have only their writes saved and are not in
        # `next`: the run goes on after them, in a phase the next node announces itself.
        for event in resumed_phase(snapshot.next):
            yield event
        async with contextlib.aclosing(self._run(None, {"status": "running"})) as stream:
            async for event in stream:
                yield event

    async def _resume_finished(self, values: dict[str, Any]) -> AsyncGenerator[Event, None]:
        """A session resumed at its end: a partial one researches further, if it may."""
        if values.get("status") == "partial":
            async with contextlib.aclosing(self._continue_partial(values)) as stream:
                async for event in stream:
                    yield event
            return
        for event in await self._finished_again(values):
            yield event

    async def _finished_again(self, values: dict[str, Any]) -> list[Event]:
        """A finished session resumed: its report again, and how it finished.

        The report is rebuilt from the checkpoint, which holds it typed, and saved here if
        this machine lacks its file (another worker wrote it, then died).
        """
        events: list[Event] = []
        values = await asyncio.to_thread(report_saved_here, self.settings, values)
        if values.get("verified_report"):
            self.last_report = report_ready_event(values)
            events.append(self.last_report)
        return [*events, *await self._finish(values)]

    async def _continue_partial(self, values: dict[str, Any]) -> AsyncGenerator[Event, None]:
        """Research a partial session further, if its caps now leave room; else say so.

        Deep research picks up the supervisor's conversation and the evidence so far; a quick
        question is asked again. The partial report stays saved beside the new one.
        """
        from langchain_core.messages import HumanMessage

        from engine.nodes.report_estimate import report_tokens

        spent = await asyncio.to_thread(stored_spend, self.settings, self.session_id)
        meter = Meter(self.caps, self.settings.price_of, spent)
        # Priced as the supervisor prices it: one more research call and the report after it.
        if meter.research_must_stop(report_tokens(values, self.settings)):
            if values.get("verified_report"):
                self.last_report = report_ready_event(values)
                yield self.last_report
            yield PhaseChanged(
                phase="done",
                detail=f"the budget is still reached ({meter.summary() or 'no cap'}); "
                "raise it with --budget-tokens or --budget-usd to continue",
            )
            yield RunFinished(session_id=self.session_id, status="partial", at=time.time())
            return
        if values.get("route") == "quick":
            async with contextlib.aclosing(self._start(self._question, "quick")) as stream:
                async for event in stream:
                    yield event
            return
        carry_on = HumanMessage(
            "The research budget was raised. Continue: dispatch research on what the "
            "evidence still lacks, then call ResearchComplete."
        )
        update = {
            "supervisor_messages": [*(values.get("supervisor_messages") or []), carry_on],
            "budget_stop": None,
            "status": "running",
        }
        # As if scoping just ended: the approved plan leads straight back to the supervisor.
        await self.graph.aupdate_state(self.config, update, as_node="scope_intake")
        async with contextlib.aclosing(self._run(None, {"status": "running"})) as stream:
            async for event in stream:
                yield event

    async def stage(self) -> Literal["new", "paused", "unfinished", "finished"]:
        """Where the saved thread stands: never run, at an interrupt, stopped midway, or done.

        A follow-up question (`start` on this session) belongs only to a finished one.
        """
        snapshot = await self.graph.aget_state(self.config)
        if snapshot.created_at is None:
            return "new"
        if snapshot.interrupts:
            return "paused"
        if not is_finished(snapshot):
            return "unfinished"
        # Finished in its checkpoint, but by a process killed before it said so: resuming
        # says it (the report, how the run ended), and only then is it finished.
        told = await asyncio.to_thread(run_end_logged, self.settings, self.session_id)
        return "finished" if told else "unfinished"

    @property
    def cancel_requested(self) -> bool:
        """Whether `cancel` was asked for since the current leg began."""
        return self._cancelled

    async def cancel(self) -> None:
        self._cancelled = True
        producer = self._producer
        if producer is not None and not producer.done():
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await producer

    # ---- internals -----------------------------------------------------------------

    def _started(self, *, resumed: bool) -> SessionStarted:
        return SessionStarted(
            session_id=self.session_id,
            question=self._question,
            mode=self._mode,
            offline=self.settings.offline,
            search_provider=self.settings.resolved_search_provider,
            resumed=resumed,
            at=time.time(),
        )

    async def _resume_with(self, value: Any) -> AsyncGenerator[Event, None]:
        from langgraph.types import Command

        row = {"status": "running"}
        async with contextlib.aclosing(self._run(Command(resume=value), row)) as stream:
            async for event in stream:
                yield event

    async def _record(self, **row: Any) -> None:
        """Write the session's index row in a thread: the graph goes on while the disk syncs.

        A cancelled caller does not cancel the write; `_settle_writes` waits for it, so a
        later row never lands before an earlier one.
        """
        write = asyncio.ensure_future(
            asyncio.to_thread(record_session, self.settings, self.session_id, **row)
        )
        self._writing = write
        await asyncio.shield(write)

    async def _settle_writes(self) -> None:
        if self._writing is not None and not self._writing.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writing

    async def _run(
        self, graph_input: Any, row: dict[str, Any], started: SessionStarted | None = None
    ) -> AsyncGenerator[Event, None]:
        """Stream one leg of the run (until it pauses, ends, fails or is cancelled).

        `row` is the index row that says the session runs; nothing (not even `started`) is
        yielded before it is written, and the graph starts once `started` is out. Every
        public stream wraps this one in `aclosing`, so a reader that stops early stops the
        graph at once and the session is recorded as interrupted, not whenever the abandoned
        generator happens to be collected.
        """
        self._cancelled = False
        meter = await self._leg_meter()
        tracker = UsageTracker(meter)
        trace = session_tracer(self.settings, self.session_id, self._question)
        config = {**self.config, "callbacks": [tracker] if trace is None else [tracker, trace]}
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        leg = _Leg()
        try:
            await self._record(**row)
            if started is not None:
                yield started
            # The graph starts once the session is announced: many sessions starting at once
            # each say so before any of them takes the engine for its first steps.
            self._producer = asyncio.create_task(
                self._produce(graph_input, config, meter, tracker, queue)
            )
            async with contextlib.aclosing(self._relay(queue, leg)) as events:
                async for event in events:
                    yield event
        finally:
            if trace is not None:
                trace.finish(leg.outcome)
            await self._stop_producer()
            await self._settle_writes()
            if not leg.settled:
                # Whoever read this stream stopped mid-run (the app quit, its worker was
                # cancelled): the last checkpoint is resumable, and the index says so.
                record_session(self.settings, self.session_id, status="interrupted")
        if leg.outcome != "ended":
            return
        for event in await self._after_leg():
            yield event

    async def _leg_meter(self) -> Meter:
        """The leg's meter: the session's caps over what it has spent so far."""
        if self.fresh:
            spent, self.fresh = Spend(), False
        else:
            spent = await asyncio.to_thread(stored_spend, self.settings, self.session_id)
        return Meter(self.caps, self.settings.price_of, spent)

    async def _produce(
        self,
        graph_input: Any,
        config: dict[str, Any],
        meter: Meter,
        tracker: UsageTracker,
        queue: asyncio.Queue[tuple[str, Any]],
    ) -> None:
        """Stream the graph into `queue`: its events and usage, then how it ended."""
        try:
            # Every task the graph starts inherits this leg's meter.
            with metering(meter):
                async for _namespace, mode, data in self.graph.astream(
                    graph_input,
                    config,
                    context=self.deps,
                    stream_mode=["updates", "custom"],
                    subgraphs=True,
                ):
                    if mode == "custom" and isinstance(data, _Event):
                        await queue.put(("event", data))
                    for usage in tracker.drain():
                        await queue.put(("event", usage))
            await queue.put(("done", None))
        except asyncio.CancelledError:
            await queue.put(("cancelled", None))
            raise
        except Exception as exc:
            await queue.put(("error", exc))

    async def _relay(
        self, queue: asyncio.Queue[tuple[str, Any]], leg: _Leg
    ) -> AsyncGenerator[Event, None]:
        """The leg's events as the graph produces them, then what a cancelled or failed leg
        says; `leg` learns the phase, the units and how the leg ended."""
        while True:
            kind, payload = await queue.get()
            if kind == "event":
                leg.see(payload)
                if isinstance(payload, ReportReady):
                    self.last_report = payload
                    await self._record(status="running", report_path=payload.report_path)
                yield payload
                continue
            leg.settled = True
            leg.outcome = {"cancelled": "cancelled", "error": "failed"}.get(kind, "ended")
            if kind == "cancelled":
                await self._record(status="interrupted")
                for unit in leg.units.cancelled():
                    yield unit
                yield PhaseChanged(phase="cancelled", detail="stopped; resume to continue")
                yield RunFinished(session_id=self.session_id, status="cancelled", at=time.time())
            elif kind == "error":
                _log.error("session %s failed", self.session_id, exc_info=payload)
                await self._record(status="failed")
                yield RunFailed(
                    error=sanitize_run_error(payload),
                    phase=leg.phase,
                    resumable=True,
                    session_id=self.session_id,
                    at=time.time(),
                )
            return

    async def _after_leg(self) -> list[Event]:
        """A leg that ended: the pause it stopped at, or how the run finished (with any
        evidence of the final state the log still lacks)."""
        snapshot = await self.graph.aget_state(self.config, subgraphs=True)
        if snapshot.interrupts:
            return await self._announce_pause(snapshot.interrupts)
        return [*await self._untold_evidence(snapshot), *await self._finish(snapshot.values or {})]

    async def _untold_evidence(self, snapshot: Any) -> list[Event]:
        """The evidence the state holds that the session's log has never stored (a follow-up
        on the same topic carries the earlier run's ledger, already told)."""
        told = await asyncio.to_thread(logged_evidence_keys, self.settings, self.session_id)
        return [event for event in evidence_of(snapshot) if record_key(event.record) not in told]

    async def _stop_producer(self) -> None:
        if self._producer is not None and not self._producer.done():
            self._producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._producer
        self._producer = None

    async def _announce_pause(self, interrupts: Any) -> list[Event]:
        events = pause_events(interrupts)
        await self._record(status=pause_status(events))
        return events

    async def _finish(self, values: dict[str, Any]) -> list[Event]:
        if values.get("status") == "cancelled":
            await self._record(status="cancelled")
            return [
                PhaseChanged(phase="cancelled", detail="the plan was cancelled"),
                RunFinished(session_id=self.session_id, status="cancelled", at=time.time()),
            ]
        status: Literal["completed", "partial"] = (
            "partial" if values.get("status") == "partial" else "completed"
        )
        await self._record(status=status, report_path=values.get("report_path"))
        return [
            PhaseChanged(phase="done"),
            RunFinished(session_id=self.session_id, status=status, at=time.time()),
        ]


async def drive(
    session: ResearchSession,
    stream: AsyncIterator[Event],
    *,
    auto_approve: bool,
    on_event: Callable[[Event], Awaitable[None]],
) -> None:
    """Read `stream` to its end; with `auto_approve`, go on past each pause as `run --yes`
    does: the plan approved as proposed, a clarifying question answered by proceeding.

    The session stays claimed from the first leg to the last, so no other run takes it
    between two legs (each leg refuses, with a `RunFailed`, a session another run holds).
    """
    try:
        await session.claim()
    except run_lock.SessionHeld:
        held = True  # the first leg says so, without storing anything
    else:
        held = False
    try:
        await _drive_legs(session, stream, auto_approve=auto_approve, on_event=on_event)
    finally:
        if not held:
            session.release()


async def _drive_legs(
    session: ResearchSession,
    stream: AsyncIterator[Event],
    *,
    auto_approve: bool,
    on_event: Callable[[Event], Awaitable[None]],
) -> None:
    current: AsyncIterator[Event] | None = stream
    while current is not None:
        follow: AsyncIterator[Event] | None = None
        async with contextlib.aclosing(current) as events:  # type: ignore[type-var]
            async for event in events:
                await on_event(event)
                if session.cancel_requested:
                    continue  # stopped: no next leg, whatever this one paused for
                if auto_approve and isinstance(event, ClarificationRequested):
                    follow = session.answer_clarification(PROCEED_ON_LIKELY_READING)
                elif auto_approve and isinstance(event, PlanProposed):
                    follow = session.review_plan(PlanDecision(action="approve"))
        if follow is not None and session.cancel_requested:
            await follow.aclose()  # type: ignore[attr-defined]
            follow = None
        current = follow


@contextlib.asynccontextmanager
async def open_engine(
    settings: Settings, *, deps: EngineDeps | None = None
) -> AsyncIterator[Callable[[str | None], ResearchSession]]:
    """The graph on the persistent checkpointer, shared by every session opened from it.

    Yields a factory: a session by id (an existing one to resume or continue), or a new one.
    A server drives many sessions at once through one checkpointer connection.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    configure_logging(settings)
    async with checkpointer(settings) as saver:
        engine_deps = deps or default_deps(settings)
        graph = build_graph(saver)
        yield lambda session_id: _session(settings, graph, engine_deps, session_id)


def _session(
    settings: Settings, graph: Any, deps: EngineDeps, session_id: str | None
) -> ResearchSession:
    """An existing session by id, or a new one (which has spent nothing yet)."""
    session = ResearchSession(settings, graph, session_id or new_session_id(), deps)
    session.fresh = session_id is None
    return session


@contextlib.asynccontextmanager
async def open_session(
    settings: Settings, session_id: str | None = None, *, deps: EngineDeps | None = None
) -> AsyncIterator[ResearchSession]:
    """A session on the persistent checkpointer: new (no id) or an existing one to resume."""
    async with open_engine(settings, deps=deps) as session_for:
        yield session_for(session_id)
