"""final_report: the report, written section by section from the evidence ledger.

One section per approved track, in plan order, each written from its track's claims and the
passages they came from (engine.nodes.section_writer); the critic checks each section against
its track's sources (engine/grounding/critic.py) and a sentence they do not support is taken
out. A track with no findings gets one line saying why. The summary is written last, from the
sections. Sources are numbered by the engine in order of first citation and listed at the
end; `writer_fallback` says when no section was written by the model (each then lists its
findings), which verify_citations states atop the report and in its audit.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from engine.budget import call_fits, call_tokens
from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.emit import emit
from engine.events import PhaseChanged, ReportDelta, ReportReviewed
from engine.grounding.critic import critique
from engine.model_task import ModelTask
from engine.nodes.common import ledger_records, today
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.section_inputs import (
    SECTION_OUTPUT_TOKENS,
    SectionInput,
    report_plan,
    section_groups,
    section_input,
    section_input_chars,
)
from engine.nodes.section_writer import (
    SourceNumbers,
    WrittenSection,
    cited_sentences,
    draft_claims,
    structured_output_supported,
    write_section,
    write_summary,
)
from engine.nodes.track_sections import NOTHING_WRITTEN_LINE, nothing_found_line
from engine.prompts import SECTION_PROMPT
from engine.state import ResearchState
from engine.text.markers import SPACED_MARKER_RE

_META_LINE = re.compile(
    r"ConductResearch|ResearchComplete|tool_call_id|think_tool|research unit|"
    r"^\s*\[(?:skipped|ResearchComplete)|^\s*Reflection recorded",
    re.IGNORECASE,
)


def strip_meta_lines(text: str) -> str:
    """Remove lines about the research machinery, which a reader should never see."""
    kept = [line for line in text.splitlines() if not _META_LINE.search(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def sources_section(sources: list[str], registry: SourceRegistry) -> str:
    lines = ["## Sources"]
    for number, source in enumerate(sources, start=1):
        title = registry.title_for(source)
        lines.append(f"[{number}] {title}: {source}" if title else f"[{number}] {source}")
    return "\n".join(lines)


async def final_report(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    """The report, section by section from the ledger (engine.nodes.section_writer): one
    section per approved track, the summary last, the sources numbered by the engine."""
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="writing"))
    records = ledger_records(state.get("evidence_ledger"))
    registry = SourceRegistry.from_dict(state.get("registry"))
    plan = report_plan(state)
    units = dict(state.get("research_units") or {})
    model = deps.model_for("writer")
    structured = await structured_output_supported(model)
    numbers = SourceNumbers()
    budget = section_input_chars(deps.settings)
    question = state.get("question", "")
    blocks: list[tuple[str, WrittenSection | str]] = []
    written: list[WrittenSection] = []
    groups = section_groups(plan, records, units)
    # Each section reaches the report pane as soon as it is written (before verification).
    emit(ReportDelta(section="", text=f"# {question}\n\n", start=True))
    for heading, title, found, index in groups:
        body: WrittenSection | str
        if not found:
            body = nothing_found_line(index, plan, units, deps.settings, state.get("budget_stop"))
        else:
            emit(PhaseChanged(phase="writing", detail=f"writing the section {heading!r}"))
            section = section_input(heading, title, question, found, registry, budget)
            drafted = await write_section(
                model, section, numbers, date=today(), structured=structured, policy=deps.retry
            )
            drafted = await reviewed_section(
                drafted, section, found, registry, numbers, deps, structured=structured
            )
            # Neither the writer nor the findings may give a sentence citing a passage: then
            # that is said, so the track does not vanish from the report with an empty heading.
            body = drafted if drafted.sentences else NOTHING_WRITTEN_LINE
            if drafted.sentences:
                written.append(drafted)
        blocks.append((heading, body))
        text = body if isinstance(body, str) else body.markdown()
        emit(ReportDelta(section=heading, text=f"## {heading}\n\n{text}\n\n"))
    summary = await write_summary(
        model, question, written, numbers, date=today(), structured=structured, policy=deps.retry
    )
    text = render_report(question, summary, blocks, numbers, registry)
    fallback = None
    if records and not any(section.written_by_model for section in written):
        fallback = "the writing model wrote no sentence citing the passages it was given"
        emit(PhaseChanged(phase="writing", detail=f"report assembled: {fallback}"))
    return {"final_report": strip_meta_lines(text) + "\n", "writer_fallback": fallback}


async def reviewed_section(
    section: WrittenSection,
    given: SectionInput,
    records: list[EvidenceRecord],
    registry: SourceRegistry,
    numbers: SourceNumbers,
    deps: EngineDeps,
    *,
    structured: bool,
) -> WrittenSection:
    """The critic's check of one section against its track's sources. A section with
    sentences its cited passages do not support is written once more with the critic's
    findings (kept when the critic finds fewer); what still fails is taken out."""
    if not deps.settings.critic_rounds or not section.sentences:
        return section
    unsupported = _unsupported(section, records, registry, numbers)
    event = ReportReviewed(round=1, max_rounds=1, unsupported_claims=len(unsupported))
    if not unsupported:
        emit(event)
        return section
    findings = "\n".join(
        f'- Unsupported: "{text}"' for text, _ in section.sentences if _plain(text) in unsupported
    )
    prompt = (
        f"{given.prompt()}\n\n## Reviewer findings on your draft\n{findings}\n"
        "Write the section again: say only what the passages say, citing their ids."
    )
    system = SECTION_PROMPT.format(date=today())
    # Priced at what it reads, as the section's first call was.
    if call_fits(call_tokens((system, prompt), SECTION_OUTPUT_TOKENS)):
        emit(event.model_copy(update={"outcome": "revising"}))
        trial = SourceNumbers(list(numbers.order))
        known = {p.number: p.locator for p in given.passages}
        try:
            claims = await draft_claims(
                deps.model_for("writer"),
                system,
                prompt,
                structured=structured,
                policy=deps.retry,
                # The rewrite is written from the same input; the findings only steer a model.
                task=ModelTask(role="section", section=given.payload()),
            )
        except Exception:
            claims = []
        revised = WrittenSection(
            section.heading, cited_sentences(claims, known, trial, given.passage_texts()), True
        )
        again = _unsupported(revised, records, registry, trial) if revised.sentences else None
        if again is not None and len(again) < len(unsupported):
            numbers.order[:] = trial.order
            section, unsupported = revised, again
        else:
            emit(event.model_copy(update={"outcome": "revision_rejected"}))
    else:
        emit(event.model_copy(update={"outcome": "budget_reached"}))
    kept = [(text, cited) for text, cited in section.sentences if _plain(text) not in unsupported]
    return WrittenSection(section.heading, kept, section.written_by_model) if kept else section


def _unsupported(
    section: WrittenSection,
    records: list[EvidenceRecord],
    registry: SourceRegistry,
    numbers: SourceNumbers,
) -> set[str]:
    """The section's sentences the critic finds its cited sources do not support."""
    draft = f"## {section.heading}\n\n{section.markdown()}\n\n" + sources_section(
        numbers.order, registry
    )
    return {_plain(item.text) for item in critique(draft, None, records, registry).unsupported}


def _plain(sentence: str) -> str:
    """A sentence without its markers, spacing or closing stop, to compare the critic's
    findings with the section's sentences."""
    return " ".join(SPACED_MARKER_RE.sub("", sentence).split()).rstrip(".!? ").casefold()


def render_report(
    question: str,
    summary: list[tuple[str, list[int]]],
    blocks: list[tuple[str, WrittenSection | str]],
    numbers: SourceNumbers,
    registry: SourceRegistry,
) -> str:
    """The report's markdown: title, summary, the sections in plan order, the sources."""
    lines = [f"# {question.strip() or 'Research report'}", ""]
    if summary:
        summary_text = WrittenSection("Summary", summary, written_by_model=True).markdown()
        lines += ["## Summary", "", summary_text, ""]
    for heading, body in blocks:
        text = body if isinstance(body, str) else body.markdown()
        lines += [f"## {heading}", "", text, ""]
    if numbers.order:
        lines.append(sources_section(numbers.order, registry))
    elif not any(isinstance(body, WrittenSection) for _, body in blocks):
        lines.append("The research found no evidence to report.")
    return "\n".join(lines).rstrip() + "\n"
