"""verify_citations: check every citation against the registry, sanitize, save, announce.

The report keeps only citations whose source a tool actually returned; unsafe URLs go too.
The audit (kept, removed and why) is stored in state and written beside the Markdown report.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.budget import session_usage, spend_summary
from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry
from engine.citations.results import CitationVerification, SanitizedReport
from engine.config import Settings
from engine.data_dir import private_dir, replace_private_text
from engine.disk_errors import writing
from engine.emit import emit
from engine.events import (
    OFFLINE_NOTICE,
    CitationAuditEntry,
    ClaimSupport,
    PhaseChanged,
    ReportReady,
)
from engine.grounding.claims import strip_markers
from engine.grounding.enforce import GroundedReport, ground_report_judged
from engine.grounding.support_judge import document_reader, report_judge
from engine.markdown_file import markdown_file_text
from engine.nodes.common import plan_of
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.list_bullets import one_bullet_per_item
from engine.nodes.track_sections import with_every_track
from engine.nodes.uncited_sources import close_up_sources
from engine.state import ResearchState
from engine.terminal_text import terminal_safe
from engine.text.words import content_tokens, stemmed_words

UNSOURCED_BANNER = (
    "**Unsourced answer:** no source was retrieved for this question, so nothing below is "
    "verified; it may come from the model's memory."
)
UNCITED_BANNER = (
    "**Unverified answer:** it lists retrieved sources, but no sentence cites one; treat "
    "every claim below as unchecked."
)
UNSUPPORTED_BANNER = (
    "**Unverified answer:** its sources were retrieved, but none of them supports what its "
    "sentences claim; those sentences were removed or marked, see the audit."
)
OFF_QUESTION_BANNER = (
    "**Unverified answer:** what its sources support is not about the question asked; what "
    "it says of the question was removed or marked, see the audit."
)
UNVERIFIED_BANNER = (
    "**Unverified answer:** none of its citations points at a source that was retrieved; "
    "treat every claim below as unchecked."
)


PARTIAL_REPORT = (
    "**Partial: budget reached ({spent} spent).** Research stopped early; this report rests "
    "on the evidence found so far. Continue it with a raised budget: `deepresearch run "
    "--resume {session} --budget-tokens N` or `--budget-usd N`."
)
LIMITED_RESEARCH = (
    "**Limited research:** research stopped before the evidence passed the quality gate "
    "({reason}): {cause}. This report rests on what was found."
)
FINDINGS_ONLY = (
    "**Findings only:** {reason}; this report lists the research findings as recorded, "
    "without a written synthesis."
)


def unverified_banner(reason: str) -> str | None:
    """The warning an answer without verified citations opens with (None when verified)."""
    if reason == "no_sources":
        return UNSOURCED_BANNER
    if reason == "no_valid_citations":
        return UNVERIFIED_BANNER
    if reason == "no_inline_citations":
        return UNCITED_BANNER
    if reason == "no_supported_claims":
        return UNSUPPORTED_BANNER
    if reason == "no_answering_claims":
        return OFF_QUESTION_BANNER
    return None


def answers_the_question(claims: list[ClaimSupport], question: str) -> bool:
    """Whether a sentence its sources support shares a content word with the question.

    A small model that has no answer in its passages may describe a passage instead ("This
    can be seen in passage [4], which describes …"): true of the passage, no answer to the
    question, and the only sentence left once grounding has marked the answer it made up.
    Without a model to judge relevance, sharing no word at all with the question is the
    screen; answers restate what they answer, so it rarely costs a right one.
    """
    asked = set(stemmed_words(question))
    return not (asked and claims) or any(
        claim.action == "kept"
        and claim.status != "unsupported"
        and asked & set(stemmed_words(strip_markers(claim.text)))
        for claim in claims
    )


def audit_entries(
    verification: CitationVerification, sanitized: SanitizedReport
) -> tuple[list[CitationAuditEntry], list[CitationAuditEntry]]:
    """Kept and removed citations after both steps, numbered as the final report shows them."""
    dropped = {removal.number: removal.reason for removal in sanitized.removed if removal.number}
    kept: list[CitationAuditEntry] = []
    removed = [
        CitationAuditEntry(number=r.number, source=r.source or "", reason=r.reason)
        for r in verification.removed_citations
    ]
    for citation in verification.valid_citations:
        if citation.number in dropped:
            removed.append(
                CitationAuditEntry(
                    number=citation.number, source=citation.source, reason=dropped[citation.number]
                )
            )
            continue
        number = sanitized.renumbered.get(citation.number, citation.number)
        kept.append(CitationAuditEntry(number=number, source=citation.source))
    return kept, removed


# What a kept citation carries of its source's text: enough to read it, not the whole page.
SOURCE_EXCERPT_CHARS = 1_500


def with_source_text(
    entry: CitationAuditEntry, registry: SourceRegistry, claims: list[ClaimSupport]
) -> CitationAuditEntry:
    """A kept citation with its source's title and the text the source returned, the
    passages closest to the sentences citing it first."""
    kept = [c for c in claims if c.action != "removed" and entry.number in c.numbers]
    cited = content_tokens(" ".join(c.text for c in kept))
    passages = registry.related_passages(entry.source)
    passages.sort(key=lambda passage: -len(cited & content_tokens(passage)))
    text = " … ".join(passages)
    if len(text) > SOURCE_EXCERPT_CHARS:
        text = text[:SOURCE_EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"
    title = registry.title_for(entry.source) or ""
    # Read on terminals, as the report is: nothing from a document may drive them.
    return entry.model_copy(update={"title": terminal_safe(title), "excerpt": terminal_safe(text)})


def session_id_of(config: RunnableConfig) -> str:
    return str((config.get("configurable") or {}).get("thread_id") or "session")


def save_report(
    reports_dir: Path,
    session_id: str,
    report: str,
    audit: dict[str, Any],
    run_number: int = 1,
    *,
    recorded: str | None = None,
) -> tuple[str, str]:
    """Write the report and its audit; a follow-up question's report never overwrites one.

    `recorded` is the report the checkpoint already names (a partial one, continued with a
    raised budget): it keeps its file and the new one goes beside it. Any other file where
    this report goes was written by this very verification before a kill cut it short, so a
    resumed verification writes over it rather than leave it beside the real one.
    """
    private_dir(reports_dir)
    stem = session_id if run_number <= 1 else f"{session_id}-{run_number}"
    report_path = reports_dir / _report_name(stem, recorded)
    audit_path = report_path.with_suffix(".audit.json")
    with writing("the report", report_path):
        replace_private_text(report_path, markdown_file_text(report))
    with writing("the report's audit", audit_path):
        replace_private_text(audit_path, json.dumps(audit, indent=2, ensure_ascii=False))
    return str(report_path), str(audit_path)


def _report_name(stem: str, recorded: str | None) -> str:
    """The file name after the recorded report's: `STEM.md`, then `STEM-continued-N.md`."""
    name = Path(recorded).name if recorded else ""
    if name == f"{stem}.md":
        return f"{stem}-continued-2.md"
    continued = re.fullmatch(re.escape(stem) + r"-continued-(\d+)\.md", name)
    if continued:
        return f"{stem}-continued-{int(continued.group(1)) + 1}.md"
    return f"{stem}.md"


async def verify_citations(
    state: ResearchState, config: RunnableConfig, runtime: Runtime[EngineDeps]
) -> dict[str, Any]:
    """Verify, sanitize and ground the report, save it with its audit, announce it."""
    deps = deps_of(runtime)
    settings = deps.settings
    emit(PhaseChanged(phase="verifying"))
    checked = await _checked(state, deps)
    report = _with_notices(checked, state, config, settings)
    audit = _audit(checked, state, settings)
    # Files are written off the event loop: a server's loop (LangGraph Server) must not block.
    report_path, audit_path = await asyncio.to_thread(
        save_report,
        settings.reports_dir,
        session_id_of(config),
        report,
        audit,
        run_number=state.get("run_number") or 1,
        recorded=state.get("report_path"),
    )
    update = {
        "verified_report": report,
        "audit": audit,
        "report_path": report_path,
        "audit_path": audit_path,
        "previous_question": state.get("question", ""),
        "status": "partial" if state.get("budget_stop") else "completed",
    }
    emit(report_ready_event(update))
    return update


@dataclass(frozen=True)
class _Checked:
    """The report after verification, sanitization and grounding, with what each found."""

    report: str
    status: str
    reason: str
    kept: list[CitationAuditEntry]
    removed: list[CitationAuditEntry]
    grounded: GroundedReport
    verification: CitationVerification
    sanitized: SanitizedReport
    # Which model judged the sentences no verbatim match settled, or why none did.
    judge_label: str


async def _checked(state: ResearchState, deps: EngineDeps) -> _Checked:
    settings = deps.settings
    registry = SourceRegistry.from_dict(state.get("registry"))
    # Strict: with nothing retrieved, no citation can stand (the default keeps the text).
    checked = check_report(state.get("final_report", ""), registry, strict=True)
    verification, sanitized = checked.verification, checked.sanitization
    # Read on terminals (`cat`, stdout, the app): no control sequence from a document,
    # a model or the question survives into it.
    report = one_bullet_per_item(terminal_safe(sanitized.sanitized_report)).strip() + "\n"
    kept, removed = audit_entries(verification, sanitized)
    quick = state.get("route") == "quick"
    chosen = await report_judge(settings, deps.model_for, quick=quick)
    grounded = await ground_report_judged(
        report,
        original=state.get("final_report", ""),
        sources={entry.number: entry.source for entry in kept},
        registry=registry,
        mode=settings.grounding,
        judge=chosen.judge,
        # A quick answer is one question's answer: the judge says what does not answer it.
        question=state.get("question") if quick else None,
        document_text=document_reader(settings) if registry.documents() else None,
    )
    status, reason = verification.status, verification.reason
    if status == "verified" and grounded.claims and not grounded.supported_left:
        status, reason = "unverified", "no_supported_claims"
    elif (
        status == "verified"
        and quick
        and not answers_the_question(grounded.claims, state.get("question") or "")
    ):
        status, reason = "unverified", "no_answering_claims"
    closed = close_up_sources(report, grounded.report, kept, grounded.claims)
    plan = None if quick else plan_of(state.get("plan"))
    if plan is not None and grounded.claims:
        # Every approved track keeps its place in the report, emptied by grounding or not.
        sections = [track.section for track in plan.tracks]
        closed = replace(closed, report=with_every_track(closed.report, sections))
    grounded = GroundedReport(closed.report, closed.claims)
    kept = [with_source_text(entry, registry, closed.claims) for entry in closed.kept]
    return _Checked(
        closed.report,
        status,
        reason,
        kept,
        removed + closed.uncited,
        grounded,
        verification,
        sanitized,
        chosen.label,
    )


def _with_notices(
    checked: _Checked, state: ResearchState, config: RunnableConfig, settings: Settings
) -> str:
    """The report under what a reader must know first: offline, unverified, findings only,
    partial, limited."""
    report = checked.report
    budget_stop = state.get("budget_stop")
    if budget_stop:
        # What was spent with the report itself, which is written after research stops.
        spent = spend_summary() or budget_stop.removeprefix("budget reached ").strip("()")
        partial = PARTIAL_REPORT.format(spent=spent, session=session_id_of(config))
        report = f"> {partial}\n\n{report}"
    elif state.get("route") != "quick" and state.get("gate_status") == "retry":
        # Said at the top, as the banners are: what follows rests on thin evidence.
        limited = LIMITED_RESEARCH.format(
            reason=state.get("gate_reason") or "",
            cause=state.get("research_stop") or "the supervisor ended it",
        )
        report = f"> {limited}\n\n{report}"
    writer_fallback = state.get("writer_fallback")
    if writer_fallback:
        # Its citations check out, so nothing else would tell a list of findings from a report.
        report = f"> {FINDINGS_ONLY.format(reason=writer_fallback)}\n\n{report}"
    banner = unverified_banner(checked.reason)
    if banner:
        # In the report itself, so every copy of it (file, screen, pipe) carries it.
        report = f"> {banner}\n\n{report}"
    if settings.offline:
        report = f"> {OFFLINE_NOTICE}\n\n{report}"
    return report


def _audit(checked: _Checked, state: ResearchState, settings: Settings) -> dict[str, Any]:
    """What was kept, removed and why, stored in state and written beside the report."""
    return {
        "question": terminal_safe(state.get("question", "")),
        "mode": "quick" if state.get("route") == "quick" else "deep",
        "verification_status": checked.status,
        "verification_reason": checked.reason,
        "quality_gate": {
            "status": state.get("gate_status") or "none",
            "reason": state.get("gate_reason"),
        },
        "budget_stop": state.get("budget_stop"),
        # None when the writer wrote the report; else why it was assembled from the ledger.
        "writer_fallback": state.get("writer_fallback"),
        # What the session's model calls cost up to this report (the writer's included).
        "usage": session_usage(),
        "kept_citations": [entry.model_dump() for entry in checked.kept],
        # A removed citation's source gave the research nothing: no title or text to keep.
        "removed_citations": [
            entry.model_dump(exclude={"title", "excerpt"}) for entry in checked.removed
        ],
        "grounding": settings.grounding,
        # Whether a model judged the sentences no verbatim match settled (see each claim's
        # decided_by and judge_error).
        "grounding_judge": checked.judge_label,
        "claims": [claim.model_dump() for claim in checked.grounded.claims],
        "verification": checked.verification.model_dump(mode="json", exclude={"verified_report"}),
        "sanitization": checked.sanitized.model_dump(mode="json", exclude={"sanitized_report"}),
    }


def report_ready_event(values: dict[str, Any]) -> ReportReady:
    """The `ReportReady` of a verified report, from the state this node writes.

    The node emits it when it runs; the runner rebuilds the same event from a checkpoint
    when a finished session is resumed.
    """
    report: str = values["verified_report"]
    audit = values.get("audit") or {}
    return ReportReady(
        report=report,
        mode="quick" if audit.get("mode") == "quick" else "deep",
        verification_status=audit.get("verification_status", "unverified"),
        verification_reason=audit.get("verification_reason", ""),
        kept_citations=[CitationAuditEntry(**e) for e in audit.get("kept_citations", [])],
        removed_citations=[CitationAuditEntry(**e) for e in audit.get("removed_citations", [])],
        claims=[ClaimSupport(**claim) for claim in audit.get("claims", [])],
        grounding=audit.get("grounding", "off"),
        grounding_judge=str(audit.get("grounding_judge") or ""),
        report_path=values.get("report_path"),
        audit_path=values.get("audit_path"),
        offline_notice=OFFLINE_NOTICE if report.startswith(f"> {OFFLINE_NOTICE}") else None,
    )
