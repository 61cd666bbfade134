"""Each session's typed events, stored as the run produces them.

A reopened session is rebuilt by replaying these events through the same renderer that showed
them live, so it looks exactly as it did: plan, units, ledger, the report with its verification
status, kept citations and audit. The session store keeps the lines (`engine/store/`): one JSON
Lines file per session under the data directory, or rows in PostgreSQL with CHECKPOINT_URL;
each event is stored before it is passed on, so a crash loses at most the event being
written. Nothing here imports LangChain: the sessions list and the app read it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.budget import Spend
from engine.citations.evidence_keys import record_key
from engine.config import Settings
from engine.events import (
    CitationAuditEntry,
    Event,
    EvidenceAdded,
    MetricRecorded,
    ModelCallProgress,
    PhaseChanged,
    ReportDelta,
    ReportReady,
    RunFailed,
    RunFinished,
    SessionStarted,
    UsageUpdated,
    event_to_json,
    parse_event,
)
from engine.protocol import is_session_id
from engine.store import session_store
from engine.store.sqlite import events_path as events_path  # where DATA_DIR keeps a log

# Facts about timing and model liveness, and the report before verification (the stored
# `ReportReady` is the report): a reopened session needs none.
_NOT_STORED = (MetricRecorded, ModelCallProgress, ReportDelta)


async def logged(
    settings: Settings, session_id: str, stream: AsyncIterator[Event]
) -> AsyncIterator[Event]:
    """Pass every event of `stream` through, appending the session's facts to its log.

    Each event is stored before it is passed on. A fact the log already holds for the
    current run (evidence, a report), re-told by a resumed run that re-did or re-read work a
    killed process had stored, is not stored again; repeated evidence is not passed on
    either (whoever follows the session has it), a repeated report is (it is the answer).
    """
    stored = await asyncio.to_thread(load_events, settings, session_id)
    facts = _RunFacts(stored or [])
    async with contextlib.aclosing(_stored(settings, session_id, stream, facts)) as out:
        async for event in out:
            yield event


async def _stored(
    settings: Settings, session_id: str, stream: AsyncIterator[Event], facts: _RunFacts
) -> AsyncGenerator[Event, None]:
    # Each write runs in a thread, so the event loop never waits on the disk or the database.
    log = await asyncio.to_thread(session_store(settings).event_appender, session_id)
    try:
        async with contextlib.aclosing(stream) as events:  # type: ignore[type-var]
            async for event in events:
                told = facts.told(event)
                if told and isinstance(event, EvidenceAdded):
                    continue
                if not told and not isinstance(event, _NOT_STORED):
                    await asyncio.to_thread(log.append, event_to_json(event))
                yield event
    finally:
        log.close()


class _RunFacts:
    """The facts the log holds for the session's current run (since its last start): each
    piece of evidence by its key, each report by its text, and the progress a resumed leg
    re-tells.

    A process killed mid-step has stored the progress of that step (phases, units, tool
    calls, reviews) but not its checkpoint; the leg that resumes it runs the step again and
    tells the same progress again. What the legs killed since the last told end stored is
    what a resume may re-tell: each such event is stored once, however often it is re-told.
    """

    def __init__(self, stored: Iterable[Event]) -> None:
        self.evidence: set[str] = set()
        self.reports: set[str] = set()
        self.leg: Counter[str] = Counter()  # progress the current leg stored
        self.unfinished: Counter[str] = Counter()  # what killed legs before it stored
        self.retold: Counter[str] = Counter()  # what the current leg may still re-tell
        self.phase = ""  # the phase the log last stored
        for event in stored:
            self.told(event)

    def told(self, event: Event) -> bool:
        """Whether the log already holds `event`'s fact; it holds it from now on."""
        if isinstance(event, SessionStarted):
            self._leg_started(resumed=event.resumed)
            return False
        if isinstance(event, RunFinished | RunFailed):
            # The run said how it ended: nothing before this is re-told by a resume.
            self.leg.clear()
            self.unfinished.clear()
            self.retold.clear()
            return False
        if isinstance(event, EvidenceAdded):
            key = record_key(event.record)
            known = key in self.evidence
            self.evidence.add(key)
            return known
        if isinstance(event, ReportReady):
            known = event.report in self.reports
            self.reports.add(event.report)
            return known
        if isinstance(event, UsageUpdated):
            return False  # tokens spent again are spent again: the budget counts them
        identity = event_identity(event)
        retold = self.retold[identity] > 0
        if retold:
            self.retold[identity] -= 1
        if isinstance(event, PhaseChanged) and event.phase != self.phase:
            # The log's latest phase is the run's: told again after the resume said another
            # phase, it is stored, or the log would keep the wrong one until the next.
            retold = False
        if retold:
            return True
        self.leg[identity] += 1
        if isinstance(event, PhaseChanged):
            self.phase = event.phase
        return False

    def _leg_started(self, *, resumed: bool) -> None:
        if resumed:
            # The leg before ended untold (killed, or paused): what it stored may be re-told.
            self.unfinished += self.leg
            self.retold = Counter(self.unfinished)
        else:
            # A new question: its evidence, reports and progress are its own.
            self.evidence.clear()
            self.reports.clear()
            self.unfinished.clear()
            self.retold.clear()
        self.leg = Counter()


# Fields that say when, or for how long, something happened: a step run again tells the same
# progress at another time.
_WHEN = re.compile(r"at|.+_at|.+_seconds")


def event_identity(event: Event) -> str:
    """What `event` tells, without when: equal for the same progress told at two times."""
    return json.dumps(_without_when(event.model_dump(mode="json")), sort_keys=True)


def _without_when(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_when(v) for k, v in value.items() if not _WHEN.fullmatch(k)}
    if isinstance(value, list):
        return [_without_when(item) for item in value]
    return value


def logged_evidence_keys(settings: Settings, session_id: str) -> set[str]:
    """The key of every piece of evidence the session's log holds, whichever run told it."""
    events = load_events(settings, session_id) or []
    return {record_key(event.record) for event in events if isinstance(event, EvidenceAdded)}


def run_end_logged(settings: Settings, session_id: str) -> bool:
    """Whether the log says how the session's current run ended (True without a log: a
    session from before event logs, or one no door ever told of)."""
    events = load_events(settings, session_id)
    if not events:
        return True
    starts = [i for i, e in enumerate(events) if isinstance(e, SessionStarted) and not e.resumed]
    current = events[starts[-1] if starts else 0 :]
    return any(isinstance(event, RunFinished) for event in current)


def stored_lines(settings: Settings, session_id: str, after: int = 0) -> list[tuple[int, str]]:
    """The session's stored event lines numbered above `after` (numbers count from 1)."""
    return session_store(settings).event_lines(session_id, after) or []


@dataclass
class RunOutcome:
    """How a run's events end: its status ("" when it neither finished nor failed), the
    error, the last report, and the tokens every model call spent."""

    status: str = ""
    error: str = ""
    report: ReportReady | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


def spend_of(events: Iterable[Event]) -> Spend:
    """What a session's model calls spent, per role, as its stored events record it."""
    spend = Spend()
    for event in events:
        if isinstance(event, UsageUpdated):
            spend.add(event.role, event.input_tokens, event.output_tokens, event.cost_usd)
    return spend


def stored_spend(settings: Settings, session_id: str) -> Spend:
    return spend_of(load_events(settings, session_id) or [])


def run_outcome(events: Iterable[Event]) -> RunOutcome:
    outcome = RunOutcome()
    for event in events:
        if isinstance(event, ReportReady):
            outcome.report = event
        elif isinstance(event, RunFinished):
            outcome.status = event.status
        elif isinstance(event, RunFailed):
            outcome.status, outcome.error = "failed", event.error
        elif isinstance(event, UsageUpdated):  # each call's own: totals restart every leg
            outcome.input_tokens += event.input_tokens
            outcome.output_tokens += event.output_tokens
            outcome.cost_usd += event.cost_usd
    return outcome


def load_events(settings: Settings, session_id: str) -> list[Event] | None:
    """The stored events of a session in order, or None when it has no log.

    A line that does not parse (a write cut short by a crash) is skipped, not fatal.
    """
    if not is_session_id(session_id):
        return None
    lines = session_store(settings).event_lines(session_id)
    if lines is None:
        return None
    events: list[Event] = []
    for _number, line in lines:
        with contextlib.suppress(ValidationError, ValueError):
            events.append(parse_event(line))
    return events


def saved_report_event(report: str, audit_path: Path) -> ReportReady:
    """A report saved before event logs existed: the Markdown plus its stored audit."""
    try:
        audit = json.loads(audit_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        audit = {}
    return ReportReady(
        report=report,
        mode="quick" if audit.get("mode") == "quick" else "deep",
        verification_status=(
            "verified" if audit.get("verification_status") == "verified" else "unverified"
        ),
        verification_reason=str(audit.get("verification_reason", "")),
        kept_citations=[CitationAuditEntry(**e) for e in audit.get("kept_citations", [])],
        removed_citations=[CitationAuditEntry(**e) for e in audit.get("removed_citations", [])],
        audit_path=str(audit_path) if audit_path.is_file() else None,
    )
