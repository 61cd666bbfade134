"""final_report: the writer's report from notes, raw notes and the evidence ledger.

On a context-overflow error the writer is retried with smaller note subsets (three attempts
in all); when it still cannot write, the report is assembled from the ledger (or the notes).
A draft is then read as claims bound to source ids and checked against the ledger
(engine/grounding/ledger_check.py); one that fails is written again with the errors fed back,
at most WRITER_ATTEMPTS calls in all (4 by default). An assembled report records why in
`writer_fallback`, which verify_citations states atop the report and in its audit.
Internal meta lines are stripped, and a Sources section built from the ledger is appended
when the writer left none. A written draft then goes through at most CRITIC_ROUNDS reviews
(engine/grounding/critic.py); the writer revises after each one that finds something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from engine.budget import another_call_allowed
from engine.citations.evidence import EvidenceRecord
from engine.citations.inline import citation_tokens
from engine.citations.parse import parse_sources_section
from engine.citations.registry import SourceRegistry
from engine.citations.sections import parse_report
from engine.emit import emit
from engine.events import PhaseChanged, ReportReviewed
from engine.grounding.critic import critique
from engine.grounding.ledger_check import check_draft
from engine.middleware.guarded import guarded_text_call
from engine.nodes.common import ledger_records, plan_of, today
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.repeated_sections import without_repeated_sections
from engine.prompt_blocks import format_ledger, format_plan
from engine.prompts import FINAL_REPORT_PROMPT
from engine.report_stream import streamed_report
from engine.sourcing.attribution import attribute_uncited
from engine.sourcing.source_numbers import SourceCatalog
from engine.state import ResearchState

# Share of the notes each attempt keeps: all, then the first 60 %, then the first 30 %.
NOTE_FRACTIONS = (1.0, 0.6, 0.3)
_OVERFLOW_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
)
_META_LINE = re.compile(
    r"ConductResearch|ResearchComplete|tool_call_id|think_tool|research unit|"
    r"^\s*\[(?:skipped|ResearchComplete)|^\s*Reflection recorded",
    re.IGNORECASE,
)
_MARKER = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")


def is_context_overflow(exc: BaseException) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return any(marker in text for marker in _OVERFLOW_MARKERS)


def strip_meta_lines(text: str) -> str:
    """Remove lines about the research machinery, which a reader should never see."""
    kept = [line for line in text.splitlines() if not _META_LINE.search(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def ledger_sources(records: list[EvidenceRecord]) -> list[str]:
    """Every source of the ledger, in order of first appearance."""
    ordered: list[str] = []
    for record in records:
        for source in record.source_urls:
            if source not in ordered:
                ordered.append(source)
    return ordered


def sources_section(sources: list[str], registry: SourceRegistry) -> str:
    lines = ["## Sources"]
    for number, source in enumerate(sources, start=1):
        title = registry.title_for(source)
        lines.append(f"[{number}] {title}: {source}" if title else f"[{number}] {source}")
    return "\n".join(lines)


def ledger_catalog(records: list[EvidenceRecord], registry: SourceRegistry) -> SourceCatalog:
    """The ledger's sources numbered as `sources_section` lists them, each with its claims."""
    catalog = SourceCatalog({})
    for number, source in enumerate(ledger_sources(records), start=1):
        catalog.entries[number] = (registry.title_for(source) or source, source)
        claims = [record.claim for record in records if source in record.source_urls]
        catalog.passages[number] = " ".join(claims)
    return catalog


def ensure_sources_section(
    report: str, records: list[EvidenceRecord], registry: SourceRegistry
) -> str:
    """The report with a Sources section: the writer's own, else one built from the ledger."""
    if parse_sources_section(report):
        return report
    sources = ledger_sources(records)
    if not sources:
        return report
    return f"{report.rstrip()}\n\n{sources_section(sources, registry)}\n"


def assembled_report(
    question: str, records: list[EvidenceRecord], notes: list[str], registry: SourceRegistry
) -> str:
    """A report built without the writer: each ledger claim cited by its sources' numbers."""
    title = f"# {question.strip() or 'Research report'}"
    if records:
        sources = ledger_sources(records)
        number = {source: i for i, source in enumerate(sources, start=1)}
        lines = [title, "", "## Findings"]
        for record in records:
            marks = "".join(f"[{number[s]}]" for s in record.source_urls)
            lines.append(f"- {record.claim} {marks}")
        return "\n".join(lines) + "\n\n" + sources_section(sources, registry) + "\n"
    if notes:
        body = "\n".join(_MARKER.sub("", note) for note in notes)
        return f"{title}\n\n## Notes\n{body}\n"
    return f"{title}\n\nThe research found no evidence to report.\n"


def writer_prompt(state: ResearchState, notes: list[str], raw_notes: list[str]) -> str:
    plan = plan_of(state.get("plan"))
    parts = [
        f"Question: {state.get('question', '')}",
        f"## Research brief\n{state.get('research_brief', '')}",
    ]
    if plan is not None:
        parts.append(format_plan(plan))
    if notes:
        parts.append("## Research notes\n" + "\n\n".join(notes))
    if raw_notes:
        parts.append("## Raw notes\n" + "\n\n".join(raw_notes))
    parts.append(format_ledger(ledger_records(state.get("evidence_ledger"))))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class WriterFailed:
    """Why the writer gave no usable report, in words for the person reading the report."""

    reason: str


async def final_report(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    """The report: drafted, held to the ledger, reviewed; assembled when the writer fails."""
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="writing"))
    records = ledger_records(state.get("evidence_ledger"))
    registry = SourceRegistry.from_dict(state.get("registry"))
    system = SystemMessage(content=FINAL_REPORT_PROMPT.format(date=today()))
    drafted = await first_draft(state, system, deps)
    if isinstance(drafted, WriterFailed):
        return fallback_report(state, records, registry, drafted)
    draft, prompt = drafted
    checked = await checked_against_ledger(draft, records, registry, system, prompt, deps)
    if isinstance(checked, WriterFailed):
        return fallback_report(state, records, registry, checked)
    text = await reviewed(checked, state, records, registry, system, prompt, deps)
    return {"final_report": text, "writer_fallback": None}


async def first_draft(
    state: ResearchState, system: SystemMessage, deps: EngineDeps
) -> tuple[str, str] | WriterFailed:
    """(the writer's first draft, the prompt it answered), on smaller notes after overflows."""
    notes = list(state.get("notes") or [])
    raw_notes = list(state.get("raw_notes") or [])
    for fraction in NOTE_FRACTIONS:
        keep_notes = notes[: max(1, int(len(notes) * fraction))] if notes else []
        keep_raw = raw_notes[: int(len(raw_notes) * fraction * fraction)]
        prompt = writer_prompt(state, keep_notes, keep_raw)
        try:
            with streamed_report():
                reply = await guarded_text_call(
                    deps.model_for("writer"), [system, HumanMessage(prompt)], policy=deps.retry
                )
        except Exception as exc:
            if is_context_overflow(exc):
                continue
            return WriterFailed(f"the writing model failed ({type(exc).__name__})")
        if not reply.text.strip():
            return WriterFailed("the writing model returned an empty report")
        return reply.text.strip(), prompt
    return WriterFailed(
        "the research notes did not fit the writing model's context, even shortened"
    )


def fallback_report(
    state: ResearchState,
    records: list[EvidenceRecord],
    registry: SourceRegistry,
    failed: WriterFailed,
) -> dict[str, Any]:
    """The report assembled from the ledger (or the notes) when the writer cannot write one,
    with why: without it the assembled list would read as a written, verified report."""
    emit(
        PhaseChanged(
            phase="writing", detail=f"report assembled from the research notes: {failed.reason}"
        )
    )
    notes = list(state.get("notes") or [])
    text = assembled_report(state.get("question", ""), records, notes, registry)
    return {"final_report": tidied(text, records, registry), "writer_fallback": failed.reason}


async def checked_against_ledger(
    draft: str,
    records: list[EvidenceRecord],
    registry: SourceRegistry,
    system: SystemMessage,
    prompt: str,
    deps: EngineDeps,
) -> str | WriterFailed:
    """The tidied draft once its claims' source ids stand on the ledger, or why not.

    A failing draft is written again with the errors fed back, WRITER_ATTEMPTS calls in all.
    The draft with the fewest errors is kept (the verifier removes what still fails); a
    WriterFailed when no draft grounds a single claim, so the report is assembled from the ledger.
    """
    text = tidied(draft, records, registry)
    if not records:
        return text  # no evidence to hold it to: the verifier says it is unsourced
    check = check_draft(text, records, registry)
    best, best_check = text, check
    ledger = [
        f"{registry.title_for(source) or source}: {source}" for source in ledger_sources(records)
    ]
    attempts = deps.settings.writer_attempts
    calls = 1
    for attempt in range(2, attempts + 1):
        if best_check.ok or not another_call_allowed():
            break
        calls = attempt
        emit(
            PhaseChanged(
                phase="writing",
                detail=f"{check.summary()}; writing it again (attempt {attempt} of {attempts})",
            )
        )
        retry = f"{prompt}\n\n## Your draft\n{text}\n\n{check.feedback(ledger)}\n\n"
        retry += "Write the whole report again."
        try:
            reply = await guarded_text_call(
                deps.model_for("writer"), [system, HumanMessage(retry)], policy=deps.retry
            )
        except Exception:
            break  # the best draft so far stands; the verifier removes what still fails
        if not reply.text.strip():
            continue
        text = tidied(reply.text.strip(), records, registry)
        check = check_draft(text, records, registry)
        if len(check.errors) < len(best_check.errors):
            best, best_check = text, check
    if records and not best_check.grounded_claims:
        tries = "1 attempt" if calls == 1 else f"{calls} attempts"
        return WriterFailed(f"the writing model did not produce a cited report after {tries}")
    return best


def tidied(text: str, records: list[EvidenceRecord], registry: SourceRegistry) -> str:
    """A writer's text without meta lines, cited where it restates the ledger, with sources."""
    text = without_repeated_sections(without_unused_sources(strip_meta_lines(text)))
    if not parse_sources_section(text):
        # A writer that cited nothing: sentences that restate a ledger claim cite its
        # sources, numbered as the Sources section below will list them.
        text = attribute_uncited(text, ledger_catalog(records, registry))
    return ensure_sources_section(text, records, registry)


def without_unused_sources(text: str) -> str:
    """A draft that cites nothing inline, without its own sources list.

    Small models often write a Sources list and no `[n]` in the text. Such a list says
    nothing about which sentence rests on what; without it, sentences that restate a ledger
    claim are cited to that claim's sources below, numbered as the ledger's list.
    """
    parsed = parse_report(text)
    if not parsed.entries:
        return text
    prose = "".join(block for _, block in parsed.prose_blocks())
    cites = any(kind != "code" for _, _, kind, _ in citation_tokens(prose))
    return text if cites else prose.rstrip() + "\n"


async def reviewed(
    draft: str,
    state: ResearchState,
    records: list[EvidenceRecord],
    registry: SourceRegistry,
    system: SystemMessage,
    prompt: str,
    deps: EngineDeps,
) -> str:
    """The draft after the critic's rounds: revised while the critic finds something.

    A revision is kept only when the critic finds it better: fewer problems, its citations
    still verified, most supported sentences still there. Otherwise the draft stands.
    """
    rounds = deps.settings.critic_rounds
    if not rounds:
        return draft
    plan = plan_of(state.get("plan"))
    found = critique(draft, plan, records, registry)
    for number in range(1, rounds + 1):
        event = ReportReviewed(
            round=number,
            max_rounds=rounds,
            missing_sections=found.missing_sections,
            unsupported_claims=len(found.unsupported),
        )
        if found.clean:
            emit(event)
            return draft
        if not another_call_allowed():
            emit(event.model_copy(update={"outcome": "budget_reached"}))
            return draft
        emit(event.model_copy(update={"outcome": "revising"}))
        revision = (
            f"{prompt}\n\n## Your draft\n{draft}\n\n{found.as_instructions()}\n\n"
            "Write the whole revised report."
        )
        try:
            with streamed_report():
                reply = await guarded_text_call(
                    deps.model_for("writer"), [system, HumanMessage(revision)], policy=deps.retry
                )
        except Exception:
            # The draft stands: a revision is an improvement, never a reason to fail the run.
            emit(event.model_copy(update={"outcome": "revision_failed"}))
            return draft
        revised = tidied(reply.text.strip(), records, registry) if reply.text.strip() else ""
        again = critique(revised, plan, records, registry) if revised else None
        if again is None or not found.improved_by(again):
            emit(event.model_copy(update={"outcome": "revision_rejected"}))
            return draft
        draft, found = revised, again
    return draft
