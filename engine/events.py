"""The event contract: one frozen, JSON-serialisable model per fact the engine reports.

The TUI, the headless CLI (`--events out.jsonl`) and the tests consume the same stream. A
consumer renders these fields and nothing else; it never parses message text to guess state.
Documented field by field in docs/events.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.citations.evidence import EvidenceRecord
from engine.schemas import ResearchPlan

OFFLINE_NOTICE = "offline extractive mode: sentences are quoted from retrieved sources"

Phase = Literal[
    "scoping",
    "clarifying",
    "routing",
    "planning",
    "plan_review",
    "researching",
    "quick_research",
    "writing",
    "verifying",
    "done",
    "cancelled",
    "failed",
]
UnitStatus = Literal[
    "queued", "running", "completed", "failed", "timed_out", "skipped", "cancelled"
]
GateStatus = Literal["none", "pass", "retry"]
# Why research ended with plan tracks no unit took up: the quality gate passed first, the
# budget ran out, or research stopped otherwise (unit or turn caps, stalled gate rejections).
UnresearchedReason = Literal[
    "none", "enough_evidence", "budget_reached", "unit_limit", "research_stopped"
]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SessionStarted(_Event):
    type: Literal["session_started"] = "session_started"
    session_id: str
    question: str
    mode: Literal["auto", "quick", "deep"] = "auto"
    offline: bool = False
    search_provider: Literal["exa", "local", "none"] = "local"
    resumed: bool = False
    # When the leg began (epoch seconds). Stored sessions are timed from these stamps; a log
    # written before they existed has none.
    at: float | None = None


class PhaseChanged(_Event):
    type: Literal["phase_changed"] = "phase_changed"
    phase: Phase
    detail: str = ""


class ClarificationRequested(_Event):
    type: Literal["clarification_requested"] = "clarification_requested"
    question: str


class PlanProposed(_Event):
    type: Literal["plan_proposed"] = "plan_proposed"
    plan: ResearchPlan
    revision: int = Field(default=1, ge=1)
    rejected_edit_reason: str | None = None
    # When the run paused for the review (epoch seconds; None in older logs).
    at: float | None = None
    # One research unit per track at most this many (MAX_RESEARCHER_ITERATIONS; 0: not
    # known), in the order engine.plan_order gives, which the feedback so far (`requests`)
    # helps decide: a front end shows which tracks the limit leaves out.
    max_research_units: int = Field(default=0, ge=0)
    requests: list[str] = Field(default_factory=list)
    # Tracks the person edited at earlier reviews of this plan: they are researched first.
    edited_tracks: list[str] = Field(default_factory=list)


class PlanApproved(_Event):
    """The person approved the plan research runs on: as proposed, or with their edits."""

    type: Literal["plan_approved"] = "plan_approved"
    plan: ResearchPlan
    revision: int = Field(default=1, ge=1)
    edited: bool = False


class RouteDecided(_Event):
    type: Literal["route_decided"] = "route_decided"
    mode: Literal["quick", "deep"]
    reason: str = ""
    overridden: bool = False


class ResearchUnitSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    topic: str
    status: UnitStatus
    started_at: float | None = None
    finished_at: float | None = None
    duration_seconds: float | None = None
    tool_call_count: int = 0
    evidence_count: int = 0
    failure_reason: str | None = None


class RuntimeProgress(_Event):
    """What the supervisor runtime decided on one pass.

    The pass that ends research also names the approved plan's tracks that no research unit
    took up (`unresearched_tracks`, by title) and why research ended without them
    (`unresearched_reason`); on every other pass they are empty and "none".
    """

    type: Literal["runtime_progress"] = "runtime_progress"
    supervisor_iteration: int = 0
    dispatched_research_units: int = 0
    skipped_research_units: int = 0
    quality_gate_status: GateStatus = "none"
    quality_gate_reason: str | None = None
    min_evidence_records: int = 0
    min_source_domains: int = 0
    evidence_record_count: int = 0
    source_domain_count: int = 0
    source_domains: list[str] = Field(default_factory=list)
    research_units: list[ResearchUnitSummary] = Field(default_factory=list)
    unresearched_tracks: list[str] = Field(default_factory=list)
    unresearched_reason: UnresearchedReason = "none"


class ResearchUnitUpdated(_Event):
    type: Literal["research_unit_updated"] = "research_unit_updated"
    unit: ResearchUnitSummary


class ToolCalled(_Event):
    type: Literal["tool_called"] = "tool_called"
    tool: str
    call_id: str = ""
    unit_id: str | None = None
    status: Literal["started", "succeeded", "failed"] = "succeeded"
    arguments: str = ""
    result_summary: str = ""
    error: str | None = None
    duration_seconds: float | None = None


class EvidenceAdded(_Event):
    type: Literal["evidence_added"] = "evidence_added"
    record: EvidenceRecord


class MetricRecorded(_Event):
    type: Literal["metric_recorded"] = "metric_recorded"
    name: str
    values: dict[str, int | float | str | bool] = Field(default_factory=dict)


class UsageUpdated(_Event):
    """One model call's tokens and cost, and the session's totals so far (every leg)."""

    type: Literal["usage_updated"] = "usage_updated"
    role: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    total_cost_usd: float = 0.0
    # The session's caps (0: none), so a consumer can show spend against them.
    budget_tokens: int = 0
    budget_usd: float = 0.0


class BudgetReached(_Event):
    """Research stopped because its next step would cross a cap; the report will be partial."""

    type: Literal["budget_reached"] = "budget_reached"
    spent_tokens: int
    spent_usd: float
    budget_tokens: int = 0
    budget_usd: float = 0.0
    detail: str = ""


class ModelSwitched(_Event):
    """A call went to the next fallback model because its own model failed."""

    type: Literal["model_switched"] = "model_switched"
    role: str
    from_model: str
    from_endpoint: str
    to_model: str
    to_endpoint: str
    reason: str


class ModelCallProgress(_Event):
    """A long model call is alive: waiting for its first token, generating, or retrying."""

    type: Literal["model_call_progress"] = "model_call_progress"
    role: str
    endpoint: str = ""
    state: Literal["waiting", "generating", "retrying", "finished"] = "waiting"
    output_tokens: int = 0
    elapsed_seconds: float = 0.0
    detail: str = ""


class CitationAuditEntry(BaseModel):
    """One citation of a report: kept, or removed with the reason.

    A kept citation carries what its source gave the research, so a reader can open it: its
    `title`, and in `excerpt` the text the tool returned (the passage of a local document,
    the text fetched or found for a web page), cut to a few paragraphs. Both are "" for a
    removed citation and in reports saved before they existed.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    source: str
    reason: str | None = None
    title: str = ""
    excerpt: str = ""


class ClaimSupport(BaseModel):
    """One cited sentence of a report, scored against the text its sources returned.

    `action` is what grounding did with it: kept, removed (strict mode; not in the report)
    or marked (mark mode; in the report with a visible marker).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    numbers: list[int] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    score: float = 0.0
    status: Literal["supported", "weak", "unsupported"] = "unsupported"
    reason: str = ""
    action: Literal["kept", "removed", "marked"] = "kept"
    # The words of the passage that decided its verdict (what to check it against).
    excerpt: str = ""
    # Who decided: its words found verbatim in a cited source (quote), the lexical score and
    # its screens (rule), or a model reading the passages (judge).
    decided_by: Literal["quote", "rule", "judge"] = "rule"
    # Where the deciding words are: the source's locator, which of the texts it returned
    # (1 = the first; 0 when none decided), and the character they start at in that text.
    passage_source: str = ""
    passage_number: int = 0
    passage_offset: int = 0
    # Why the judge, when one was asked, left the verdict to the rules ("" otherwise).
    judge_error: str = ""
    # For a quick answer, whether the judge read it as answering the question (None: not asked).
    answers_question: bool | None = None


class ReportReviewed(_Event):
    """One round of the critic's review of the draft report, and what happens next."""

    type: Literal["report_reviewed"] = "report_reviewed"
    round: int
    max_rounds: int
    missing_sections: list[str] = Field(default_factory=list)
    unsupported_claims: int = 0
    # clean: nothing found, the draft stands; revising: the writer rewrites it now;
    # revision_failed: the writer could not; revision_rejected: the critic found the
    # revision worse than the draft. In both, the draft stands.
    outcome: Literal[
        "clean", "revising", "revision_failed", "revision_rejected", "budget_reached"
    ] = "clean"


class ReportDelta(_Event):
    """A piece of the report as the writer writes it, before verification: shown as it comes,
    then replaced by the verified `ReportReady`. Not stored with the session."""

    type: Literal["report_delta"] = "report_delta"
    # The heading of the section being written ("" before the first heading).
    section: str = ""
    text: str
    # The first piece of a draft: what an earlier draft (a retry, a revision) streamed is gone.
    start: bool = False


class ReportReady(_Event):
    type: Literal["report_ready"] = "report_ready"
    report: str
    mode: Literal["quick", "deep"] = "deep"
    verification_status: Literal["verified", "unverified"] = "unverified"
    verification_reason: str = ""
    kept_citations: list[CitationAuditEntry] = Field(default_factory=list)
    removed_citations: list[CitationAuditEntry] = Field(default_factory=list)
    claims: list[ClaimSupport] = Field(default_factory=list)
    grounding: Literal["strict", "mark", "off"] = "off"
    # Which model judged the sentences no verbatim match settled, or why none did ("off", …).
    grounding_judge: str = ""
    report_path: str | None = None
    audit_path: str | None = None
    offline_notice: str | None = None


class RunFailed(_Event):
    type: Literal["run_failed"] = "run_failed"
    error: str
    phase: str = ""
    resumable: bool = True
    session_id: str = ""
    at: float | None = None  # when the run stopped (epoch seconds; None in older logs)


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    session_id: str
    # partial: the report was written early, when the session's budget was reached.
    status: Literal["completed", "partial", "cancelled"] = "completed"
    at: float | None = None  # when the run ended (epoch seconds; None in older logs)


Event = Annotated[
    SessionStarted
    | PhaseChanged
    | ClarificationRequested
    | PlanProposed
    | PlanApproved
    | RouteDecided
    | RuntimeProgress
    | ResearchUnitUpdated
    | ToolCalled
    | EvidenceAdded
    | MetricRecorded
    | UsageUpdated
    | BudgetReached
    | ModelSwitched
    | ModelCallProgress
    | ReportReviewed
    | ReportDelta
    | ReportReady
    | RunFailed
    | RunFinished,
    Field(discriminator="type"),
]

EVENT_TYPES: tuple[type[_Event], ...] = (
    SessionStarted,
    PhaseChanged,
    ClarificationRequested,
    PlanProposed,
    PlanApproved,
    RouteDecided,
    RuntimeProgress,
    ResearchUnitUpdated,
    ToolCalled,
    EvidenceAdded,
    MetricRecorded,
    UsageUpdated,
    BudgetReached,
    ModelSwitched,
    ModelCallProgress,
    ReportReviewed,
    ReportDelta,
    ReportReady,
    RunFailed,
    RunFinished,
)

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: str | bytes | dict[str, Any]) -> Event:
    """Parse one event from JSON text or a decoded mapping; raises `ValidationError`."""
    if isinstance(data, dict):
        return _ADAPTER.validate_python(data)
    return _ADAPTER.validate_json(data)


def event_to_json(event: _Event) -> str:
    """One line of JSON, as written to `--events` files."""
    return event.model_dump_json()
