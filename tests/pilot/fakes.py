"""A scripted stand-in for the engine: replays fixed events per driver call, records decisions.

Every pilot and snapshot test drives the app through this, so runs are deterministic. The
story (plan, units, evidence, report) is small but shaped like a real offline run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from engine.citations.evidence import EvidenceRecord
from engine.events import (
    CitationAuditEntry,
    ClaimSupport,
    ClarificationRequested,
    Event,
    EvidenceAdded,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RouteDecided,
    RunFailed,
    RunFinished,
    RuntimeProgress,
    SessionStarted,
    ToolCalled,
    UsageUpdated,
)
from engine.protocol import SessionInfo
from engine.schemas import PlanDecision, ResearchPlan, ResearchTrack
from tui.link.backend import DoctorSummary, LocalModelOffer, ModelProfileRow

QUESTION = "How does asyncio schedule coroutines?"
SESSION_ID = "s-0001"


class Hold:
    """A script step that waits until released (or the call is cancelled)."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.release = asyncio.Event()


Step = Event | Hold | BaseException


class ScriptedDriver:
    """Each call pops the next script for its method name and replays it."""

    def __init__(self, script: dict[str, list[list[Step]]], session_id: str = SESSION_ID) -> None:
        self.session_id = session_id
        self.script = {name: list(runs) for name, runs in script.items()}
        self.calls: list[tuple[str, Any]] = []
        self.cancelled = 0
        self._cancel = asyncio.Event()

    async def _replay(self, name: str, argument: Any) -> AsyncIterator[Event]:
        self.calls.append((name, argument))
        self._cancel = asyncio.Event()
        runs = self.script.get(name) or []
        steps = runs.pop(0) if runs else []
        for step in steps:
            if isinstance(step, Hold):
                step.reached.set()
                if await self._held_until_cancelled(step):
                    # As the engine does: the stream ends by saying the run was cancelled.
                    yield PhaseChanged(phase="cancelled", detail="stopped; resume to continue")
                    yield RunFinished(session_id=self.session_id, status="cancelled")
                    return
            elif isinstance(step, BaseException):
                raise step
            else:
                yield step
                await asyncio.sleep(0)

    def start(self, question: str, *, mode: str = "auto") -> AsyncIterator[Event]:
        return self._replay("start", (question, mode))

    def answer_clarification(self, answer: str) -> AsyncIterator[Event]:
        return self._replay("answer_clarification", answer)

    def review_plan(self, decision: PlanDecision) -> AsyncIterator[Event]:
        return self._replay("review_plan", decision)

    def resume(self) -> AsyncIterator[Event]:
        return self._replay("resume", None)

    async def _held_until_cancelled(self, hold: Hold) -> bool:
        """Wait for the hold's release or a cancel; True when cancelled."""
        released = asyncio.ensure_future(hold.release.wait())
        cancelled = asyncio.ensure_future(self._cancel.wait())
        try:
            await asyncio.wait({released, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            released.cancel()
            cancelled.cancel()
        return self._cancel.is_set()

    async def cancel(self) -> None:
        self.cancelled += 1
        self._cancel.set()

    def decisions(self) -> list[PlanDecision]:
        return [argument for name, argument in self.calls if name == "review_plan"]


class FakeBackend:
    """Sessions by id; a session id of None opens `default`."""

    def __init__(
        self,
        default: ScriptedDriver,
        *,
        saved: dict[str, ScriptedDriver] | None = None,
        sessions: list[SessionInfo] | None = None,
        reports: dict[str, ReportReady] | None = None,
        logs: dict[str, list[Event]] | None = None,
        exports: Path = Path("/nonexistent/exports"),
        env_path: Path | None = None,
        doctor_text: str = "deepresearch doctor\n\nok  model  offline (built-in)",
        open_error: BaseException | None = None,
        offline: bool = True,
        indexing: Callable[[Callable[[int, int], None]], None] = lambda progress: None,
        profiles: list[ModelProfileRow] | None = None,
        local_offers: list[LocalModelOffer] | None = None,
        questions: dict[str, list[str]] | None = None,
    ) -> None:
        self.questions = questions or {}
        self.local_offers = local_offers or []
        self.offers_asked = 0
        self.profiles = profiles or []
        self.offline = offline
        self.indexing = indexing
        self.default = default
        self.saved = saved or {}
        self.sessions = sessions or []
        self.reports = reports or {}
        self.logs = logs or {}
        self.exports = exports
        self.env_path = env_path or Path("/nonexistent/.env")
        self.doctor_text = doctor_text
        self.open_error = open_error
        self.opened: list[str | None] = []
        self.closed: list[str] = []
        self.deleted: list[str] = []
        self.reloads = 0
        self.doctor_probes: list[bool] = []
        self.exported: list[tuple[str, Path]] = []

    @asynccontextmanager
    async def open_session(self, session_id: str | None) -> AsyncIterator[ScriptedDriver]:
        self.opened.append(session_id)
        if self.open_error is not None:
            raise self.open_error
        driver = self.saved[session_id] if session_id is not None else self.default
        try:
            yield driver
        finally:
            self.closed.append(driver.session_id)

    async def list_sessions(self) -> list[SessionInfo]:
        return list(self.sessions)

    async def session_questions(self, session_ids: list[str]) -> dict[str, list[str]]:
        return {sid: list(self.questions[sid]) for sid in session_ids if sid in self.questions}

    async def load_session(self, session_id: str) -> list[Event] | None:
        if session_id in self.logs:
            return list(self.logs[session_id])
        report = self.reports.get(session_id)
        if report is None:
            return None
        return [SessionStarted(session_id=session_id, question=""), report]

    async def delete_session(self, session_id: str) -> None:
        """As the engine does: a running session stays, with the reason; else all goes."""
        from engine.sessions import SessionNotDeleted

        info = next((s for s in self.sessions if s.session_id == session_id), None)
        if info is None:
            raise SessionNotDeleted(f"no saved session {session_id!r}")
        if info.status == "running":
            raise SessionNotDeleted(f"session {session_id} is running; cancel the run first")
        self.deleted.append(session_id)
        self.sessions = [s for s in self.sessions if s.session_id != session_id]
        self.logs.pop(session_id, None)
        self.reports.pop(session_id, None)

    def export_dir(self) -> Path:
        return self.exports

    async def export_report(
        self, report: ReportReady, *, question: str, session_id: str, fmt: str, path: Path
    ) -> Path:
        """The engine's own exporter: writing files is no network and quick for Markdown."""
        from engine.export import export_report

        self.exported.append((fmt, path))
        return await asyncio.to_thread(
            export_report,
            report,
            question=question,
            session_id=session_id,
            fmt=fmt,  # type: ignore[arg-type]
            path=path,
        )

    async def doctor(self, *, probe: bool = False) -> DoctorSummary:
        self.doctor_probes.append(probe)
        return DoctorSummary(self.doctor_text, True)

    def offline_model(self) -> bool:
        return self.offline

    def model_profiles(self) -> list[ModelProfileRow]:
        return list(self.profiles)

    def prepare_documents(self, progress: Callable[[int, int], None]) -> None:
        self.indexing(progress)

    async def local_model_offers(self) -> list[LocalModelOffer]:
        self.offers_asked += 1
        return list(self.local_offers)

    def env_file(self) -> Path:
        return self.env_path

    def reload_settings(self) -> None:
        self.reloads += 1


# ---- the story -------------------------------------------------------------------------

SOURCES = (
    "https://docs.python.org/3/library/asyncio-task.html",
    "https://docs.python.org/3/library/asyncio-eventloop.html",
    "https://peps.python.org/pep-0492/",
    "docs/samples/asyncio-queue.html",
)


def sample_plan() -> ResearchPlan:
    return ResearchPlan(
        scope="How the asyncio event loop runs coroutines and tasks; not third-party loops.",
        tracks=[
            ResearchTrack(
                title="Event loop mechanics",
                section="The event loop",
                queries=["asyncio event loop run_forever", "call_soon ready queue"],
            ),
            ResearchTrack(
                title="Tasks and coroutines",
                section="Tasks",
                queries=["asyncio create_task", "coroutine await suspension"],
            ),
            ResearchTrack(
                title="Native coroutine syntax",
                section="async and await",
                queries=["PEP 492 async await"],
            ),
        ],
        evidence_strategy="Official documentation and PEPs.",
        output_format="Sectioned report with citations.",
    )


def unit(index: int, status: str = "completed", **extra: Any) -> ResearchUnitSummary:
    topics = ["Event loop mechanics", "Tasks and coroutines", "Native coroutine syntax"]
    data: dict[str, Any] = {
        "id": f"u{index}",
        "topic": topics[(index - 1) % len(topics)],
        "status": status,
        "tool_call_count": 3 if status == "completed" else 1,
        "evidence_count": 2 if status == "completed" else 0,
        "duration_seconds": 4.2 + index if status in ("completed", "failed") else None,
    }
    data.update(extra)
    return ResearchUnitSummary(**data)


def record(index: int) -> EvidenceRecord:
    claims = [
        "The event loop runs in a thread and executes all callbacks and tasks in its thread.",
        "call_soon schedules a callback to be called on the next iteration of the loop.",
        "create_task wraps a coroutine into a Task and schedules its execution.",
        "A Task suspends the coroutine when it awaits a future that is not done.",
        "PEP 492 introduced native coroutines declared with async def.",
        "An asyncio Queue is not thread-safe and is designed for async code.",
    ]
    sources = [
        [SOURCES[1]],
        [SOURCES[1]],
        [SOURCES[0]],
        [SOURCES[0], SOURCES[1]],
        [SOURCES[2]],
        [SOURCES[3]],
    ]
    return EvidenceRecord(
        id=f"e{index}",
        claim=claims[(index - 1) % len(claims)],
        source_urls=sources[(index - 1) % len(sources)],
        confidence=0.8,
        contradiction_or_uncertainty="older docs differ" if index == 4 else None,
        research_unit_id=f"u{(index - 1) // 2 + 1}",
    )


REPORT_MARKDOWN = """# How asyncio schedules coroutines

## The event loop

The event loop executes every callback and task in its own thread [1]. `call_soon` queues a
callback for the next loop iteration [1].

## Tasks

`create_task` wraps a coroutine in a Task and schedules it [2]. A task suspends while it awaits
a pending future [2].

## async and await

Native coroutines are declared with `async def` [3].

## Sources

1. https://docs.python.org/3/library/asyncio-eventloop.html
2. https://docs.python.org/3/library/asyncio-task.html
3. https://peps.python.org/pep-0492/
"""


def report_event(**extra: Any) -> ReportReady:
    data: dict[str, Any] = {
        "report": REPORT_MARKDOWN,
        "mode": "deep",
        "verification_status": "verified",
        "kept_citations": [
            CitationAuditEntry(number=1, source=SOURCES[1]),
            CitationAuditEntry(number=2, source=SOURCES[0]),
            CitationAuditEntry(number=3, source=SOURCES[2]),
        ],
        "removed_citations": [
            CitationAuditEntry(
                number=4, source="https://example.invalid/blog", reason="never retrieved"
            )
        ],
        "grounding": "strict",
        "claims": [
            ClaimSupport(
                text="Native coroutines are declared with `async def` [3].",
                numbers=[3],
                sources=[SOURCES[2]],
                score=0.9,
                status="supported",
                excerpt="Coroutines declared with the async/await syntax are the preferred way.",
            ),
            ClaimSupport(
                text="Tasks run on a thread pool by default [2].",
                numbers=[2],
                sources=[SOURCES[0]],
                status="unsupported",
                reason="its sources do not say this",
                action="removed",
            ),
        ],
    }
    data.update(extra)
    return ReportReady(**data)


def progress(
    *units: ResearchUnitSummary, records: int, domains: int, status: str
) -> RuntimeProgress:
    return RuntimeProgress(
        supervisor_iteration=1,
        dispatched_research_units=len(units),
        quality_gate_status=status,  # type: ignore[arg-type]
        quality_gate_reason="need 2 more domains" if status == "retry" else None,
        min_evidence_records=5,
        min_source_domains=3,
        evidence_record_count=records,
        source_domain_count=domains,
        research_units=list(units),
    )


def opening(offline: bool = True) -> list[Step]:
    return [
        SessionStarted(session_id=SESSION_ID, question=QUESTION, offline=offline),
        PhaseChanged(phase="scoping"),
        RouteDecided(mode="deep", reason="needs several sources"),
        PhaseChanged(phase="planning"),
        PlanProposed(plan=sample_plan()),
        PhaseChanged(phase="plan_review"),
    ]


def tool_calls() -> list[Step]:
    return [
        ToolCalled(
            tool="search_web",
            unit_id="u1",
            arguments="asyncio event loop",
            result_summary="8 results",
            duration_seconds=0.2,
        ),
        ToolCalled(
            tool="fetch_url",
            unit_id="u1",
            arguments=SOURCES[1],
            result_summary="7,900 chars",
            duration_seconds=0.4,
        ),
        ToolCalled(
            tool="search_web",
            unit_id="u2",
            arguments="asyncio create_task",
            result_summary="8 results",
            duration_seconds=0.2,
        ),
    ]


def research_running() -> list[Step]:
    """Research up to the point where units are still running (no report yet)."""
    return [
        PhaseChanged(phase="researching", detail="wave 1"),
        progress(
            unit(1, "running"),
            unit(2, "running"),
            unit(3, "queued"),
            records=0,
            domains=0,
            status="none",
        ),
        *tool_calls(),
        *(EvidenceAdded(record=record(i)) for i in range(1, 4)),
        ResearchUnitUpdated(unit=unit(1)),
        UsageUpdated(
            role="researcher",
            input_tokens=1200,
            output_tokens=300,
            total_input_tokens=1200,
            total_output_tokens=300,
        ),
    ]


def research_finished() -> list[Step]:
    return [
        *(EvidenceAdded(record=record(i)) for i in range(4, 7)),
        ResearchUnitUpdated(unit=unit(2)),
        ResearchUnitUpdated(unit=unit(3, "failed", failure_reason="search timed out")),
        progress(
            unit(1),
            unit(2),
            unit(3, "failed", failure_reason="search timed out"),
            records=6,
            domains=3,
            status="pass",
        ),
        UsageUpdated(
            role="writer",
            input_tokens=3000,
            output_tokens=900,
            total_input_tokens=4200,
            total_output_tokens=1200,
        ),
        PhaseChanged(phase="writing"),
        PhaseChanged(phase="verifying"),
        report_event(),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID),
    ]


def full_story(extra_review_runs: Iterable[list[Step]] = ()) -> dict[str, list[list[Step]]]:
    """start → plan; approve → units, ledger, report."""
    return {
        "start": [opening()],
        "review_plan": [research_running() + research_finished(), *extra_review_runs],
    }


def clarification_story() -> dict[str, list[list[Step]]]:
    return {
        "start": [
            [
                SessionStarted(session_id=SESSION_ID, question="asyncio?", offline=True),
                PhaseChanged(phase="clarifying"),
                ClarificationRequested(question="Which part of asyncio: scheduling, I/O, or APIs?"),
            ]
        ],
        "answer_clarification": [opening()[1:]],
    }


def failed_run() -> list[Step]:
    return [
        PhaseChanged(phase="researching"),
        RunFailed(
            error="The model endpoint did not answer in time.",
            phase="researching",
            session_id=SESSION_ID,
        ),
    ]


async def settle(pilot: Any) -> None:
    """Wait for the engine call (not the long-lived session host) and the messages it posted."""
    app = pilot.app
    await pilot.pause()
    busy = [worker for worker in app.workers if worker.group != "session"]
    if busy:  # an empty list would mean "every worker", the session host included
        await app.workers.wait_for_complete(busy)
    await pilot.pause()
    await pilot.pause()
