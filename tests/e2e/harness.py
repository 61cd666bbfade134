"""Running whole sessions and checking what they produced, shared by the end-to-end tests."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.citations.registry import SourceRegistry
from engine.config import SAMPLE_CORPUS, Settings
from engine.events import (
    Event,
    EvidenceAdded,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    ResearchUnitUpdated,
    RunFailed,
    RunFinished,
    RuntimeProgress,
    event_to_json,
    parse_event,
)
from engine.run.runner import open_session
from engine.schemas import PlanDecision

_MARKS = re.compile(r"\s*(?:\[\^?\d+(?:\s*[-,]\s*\d+)*\])+")
_SOURCE_LINE = re.compile(r"^\[(\d+)\] (.+)$")


def outside_corpus(report: ReportReady, folder: Path = SAMPLE_CORPUS) -> list[str]:
    """Kept citations that name no document of `folder`, by default the sample corpus (page
    anchors aside)."""
    corpus = {path.name for path in folder.iterdir()}
    return [c.source for c in report.kept_citations if c.source.split("#")[0] not in corpus]


@dataclass
class SessionRun:
    """Everything one session produced: its events, final graph values and registry."""

    session_id: str
    events: list[Event] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def registry(self) -> SourceRegistry:
        return SourceRegistry.from_dict(self.values.get("registry"))

    @property
    def report(self) -> ReportReady | None:
        return next((e for e in self.events if isinstance(e, ReportReady)), None)

    @property
    def plan(self) -> PlanProposed | None:
        plans = [e for e in self.events if isinstance(e, PlanProposed)]
        return plans[-1] if plans else None

    @property
    def failures(self) -> list[RunFailed]:
        return [e for e in self.events if isinstance(e, RunFailed)]

    def of_type(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


async def run_deep_session(
    settings: Settings, question: str, *, session_id: str | None = None, resume: bool = False
) -> SessionRun:
    """Start (or resume) a session and approve the first plan it proposes."""
    async with open_session(settings, session_id) as session:
        run = SessionRun(session.session_id)
        stream = session.resume() if resume else session.start(question, mode="deep")
        async for event in stream:
            run.events.append(event)
        if run.plan is not None and not any(isinstance(e, RunFinished) for e in run.events):
            async for event in session.review_plan(PlanDecision(action="approve")):
                run.events.append(event)
        snapshot = await session.graph.aget_state(session.config)
        run.values = dict(snapshot.values or {})
    return run


def write_jsonl(events: list[Event], path: Path) -> None:
    path.write_text("".join(event_to_json(e) + "\n" for e in events), encoding="utf-8")


def read_jsonl(path: Path) -> list[Event]:
    return [parse_event(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass(frozen=True)
class FinalState:
    """What a consumer of the event stream knows at the end: the UI's state, folded."""

    phase: str
    plan_tracks: tuple[str, ...]
    units: tuple[tuple[str, str, int], ...]
    evidence_ids: tuple[str, ...]
    gate: str
    report: str
    finished: str


def replay(events: list[Event]) -> FinalState:
    """Fold events into the state a front end would show (no message text parsed)."""
    phase, gate, report, finished = "", "none", "", ""
    tracks: tuple[str, ...] = ()
    units: dict[str, tuple[str, int]] = {}
    evidence: list[str] = []
    for event in events:
        if isinstance(event, PhaseChanged):
            phase = event.phase
        elif isinstance(event, PlanProposed):
            tracks = tuple(t.title for t in event.plan.tracks)
        elif isinstance(event, ResearchUnitUpdated):
            units[event.unit.id] = (event.unit.status, event.unit.evidence_count)
        elif isinstance(event, RuntimeProgress):
            gate = event.quality_gate_status
        elif isinstance(event, EvidenceAdded):
            evidence.append(event.record.id)
        elif isinstance(event, ReportReady):
            report = event.report
        elif isinstance(event, RunFinished):
            finished = event.status
    return FinalState(
        phase=phase,
        plan_tracks=tracks,
        units=tuple(sorted((uid, status, count) for uid, (status, count) in units.items())),
        evidence_ids=tuple(evidence),
        gate=gate,
        report=report,
        finished=finished,
    )


def flat(text: str) -> str:
    return " ".join(text.split())


def report_sentences(report: str) -> list[str]:
    """Body lines of a report outside headings, notices and the Sources section, unmarked."""
    body = re.split(r"^#{1,3} (?:Sources|References)\s*$", report, flags=re.M)[0]
    lines = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ">")):
            continue
        lines.append(flat(_MARKS.sub("", stripped)))
    return lines


def inline_citations(report: str) -> int:
    """How many `[n]` markers the body carries (outside the Sources section)."""
    body = re.split(r"^#{1,3} (?:Sources|References)\s*$", report, flags=re.M)[0]
    return len(re.findall(r"\[\d+\]", body))


def cited_sources(report: str) -> list[str]:
    """The URL or document key of each `[n] Title: locator` line of the Sources section."""
    parts = re.split(r"^#{1,3} (?:Sources|References)\s*$", report, flags=re.M)
    if len(parts) < 2:
        return []
    found = []
    for line in parts[1].splitlines():
        match = _SOURCE_LINE.match(line.strip())
        if match:
            found.append(match.group(2).rsplit(": ", 1)[-1].strip())
    return found


def assert_well_ordered(events: list[Event]) -> None:
    """Session start first, phases in pipeline order, plan before units, report before end."""
    kinds = [e.type for e in events]
    assert kinds[0] == "session_started"
    assert kinds[-1] == "run_finished"
    order = ["planning", "plan_review", "researching", "writing", "verifying", "done"]
    phases = [e.phase for e in events if isinstance(e, PhaseChanged) and e.phase in order]
    positions = [order.index(p) for p in phases]
    assert positions == sorted(positions), phases
    assert set(order) <= set(phases)
    first = {kind: kinds.index(kind) for kind in set(kinds)}
    assert first["plan_proposed"] < first["research_unit_updated"] < first["report_ready"]
    assert first["runtime_progress"] < first["report_ready"] < kinds.index("run_finished")
    json.dumps([event_to_json(e) for e in events])  # every event serialises
