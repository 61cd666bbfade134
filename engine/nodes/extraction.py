"""A researcher's conversation → notes, raw notes and evidence records. No LLM involved.

Evidence comes from citation parsing of the researcher's final message: each sentence with a
resolvable `[n]` marker becomes a claim bound to the sources the registry holds for it (as the
registry returned them); sources the researcher never retrieved are dropped, and so is a claim
left without any. Uncertainty is flagged by pattern. Both caps come from the settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from engine.citations.evidence import EvidenceRecord
from engine.citations.extract import extract_cited_sentences, flag_uncertainty
from engine.citations.registry import SourceRegistry
from engine.config import Settings
from engine.grounding.confidence import evidence_confidence
from engine.nodes.plan_dispatch import topic_focus, topic_without_question
from engine.nodes.researcher_passages import PASSAGES_HEADING
from engine.sourcing.attribution import attribute_uncited
from engine.sourcing.extractive import quoted_findings
from engine.sourcing.finding_text import finding_text, restates_task
from engine.sourcing.source_numbers import (
    SourceCatalog,
    body_of,
    catalog_of,
    complete_references,
)
from engine.text.markers import NUMBERED_MARKER_RE
from engine.text.sentences import LIST_BULLET_RE

# Tool output worth keeping verbatim for the writer; think_tool reflections are not evidence.
_RAW_NOTE_TOOLS = frozenset({"search_web", "fetch_url"})
RAW_NOTE_CHARS = 2_000
RAW_NOTES_TOTAL_CHARS = 8_000


@dataclass
class ResearcherFindings:
    """What one research unit contributes to the ledger and the notes."""

    final_text: str
    notes: str
    raw_notes: str
    records: list[EvidenceRecord] = field(default_factory=list)
    tool_call_count: int = 0


def final_message_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the researcher's last AI message (its findings)."""
    for message in reversed(messages):
        if isinstance(message, AIMessage) and message.text.strip():
            return message.text.strip()
    return ""


def topic_of(messages: Sequence[BaseMessage]) -> str:
    """The research unit's topic: the first message the researcher was given."""
    first = next((m for m in messages if isinstance(m, HumanMessage)), None)
    # The passages it started from follow the topic in the same message.
    return first.text.split(PASSAGES_HEADING)[0].strip() if first is not None else ""


def sourced_text(
    text: str, messages: Sequence[BaseMessage], seed: SourceCatalog | None = None
) -> str:
    """The findings with uncited sentences attributed to the passages that contain them, and
    a references list for cited numbers the researcher did not list (small models cite `[n]`
    far more reliably than they write sources)."""
    catalog = numbering_of(messages, seed)
    return complete_references(attribute_uncited(text, catalog), catalog)


def numbering_of(messages: Sequence[BaseMessage], seed: SourceCatalog | None) -> SourceCatalog:
    """The numbers the researcher was shown: the passages it started from (`seed`) keep
    theirs; its own searches' numbers fill in the rest."""
    found = catalog_of(messages)
    if seed is None or not seed.entries:
        return found
    merged = SourceCatalog(dict(seed.entries), dict(seed.passages))
    for number, entry in found.entries.items():
        if number not in merged.entries:
            merged.entries[number] = entry
            merged.passages[number] = found.passages.get(number, "")
    return merged


def count_tool_calls(messages: Sequence[BaseMessage]) -> int:
    return sum(len(m.tool_calls) for m in messages if isinstance(m, AIMessage))


def raw_notes_from(messages: Sequence[BaseMessage]) -> str:
    """Search and fetch results, each truncated, within a total budget."""
    pieces: list[str] = []
    used = 0
    for message in messages:
        if not isinstance(message, ToolMessage) or message.name not in _RAW_NOTE_TOOLS:
            continue
        text = message.text.strip()[:RAW_NOTE_CHARS]
        if not text or used + len(text) > RAW_NOTES_TOTAL_CHARS:
            continue
        pieces.append(text)
        used += len(text)
    return "\n\n".join(pieces)


def compress_notes(text: str, *, max_bullets: int, word_budget: int) -> str:
    """The findings as at most `max_bullets` bullets within `word_budget` words."""
    bullets: list[str] = []
    words = 0
    for line in text.splitlines():
        cleaned = LIST_BULLET_RE.sub("", line.strip()).strip()
        if cleaned.lstrip("#").strip().lower().rstrip(":") in {"sources", "references"}:
            break  # the list the engine completes (`complete_references`) is no finding
        # A heading, or a line of citation numbers alone ("[1] [2] [3] [4]", seen from the
        # 1.5B), says nothing.
        if cleaned.startswith("#") or not NUMBERED_MARKER_RE.sub("", cleaned).strip(" .,;"):
            continue
        size = len(cleaned.split())
        if words + size > word_budget or len(bullets) >= max_bullets:
            break
        bullets.append(f"- {cleaned}")
        words += size
    return "\n".join(bullets)


def evidence_from_text(
    text: str,
    registry: SourceRegistry,
    *,
    unit_id: str,
    max_claims: int,
    max_sources_per_claim: int,
) -> list[EvidenceRecord]:
    """Claims with retrieved sources, capped per unit and per claim."""
    records: list[EvidenceRecord] = []
    seen_claims: set[str] = set()
    for cited in extract_cited_sentences(text):
        if len(records) >= max_claims:
            break
        sources: list[str] = []
        for source in cited.sources:
            resolved = registry.lookup(source)
            if resolved is not None and resolved not in sources:
                sources.append(resolved)
            if len(sources) >= max_sources_per_claim:
                break
        if not sources:
            continue
        # A search result's label written back is no finding, whichever label it was.
        names = [*sources, *(label for source in sources for label in registry.labels_for(source))]
        claim = finding_text(" ".join(cited.sentence.split()), names)
        if not claim or claim.casefold() in seen_claims:
            continue
        seen_claims.add(claim.casefold())
        uncertainty = flag_uncertainty(claim)
        records.append(
            EvidenceRecord(
                id=f"{unit_id}-e{len(records) + 1}",
                claim=claim,
                source_urls=sources,
                confidence=evidence_confidence(
                    claim, sources, registry, hedged=uncertainty is not None
                ),
                contradiction_or_uncertainty=uncertainty,
                research_unit_id=unit_id,
            )
        )
    return records


def findings_from_messages(
    messages: Sequence[BaseMessage],
    registry: SourceRegistry,
    *,
    unit_id: str,
    max_claims: int,
    max_sources_per_claim: int,
    max_bullets: int,
    word_budget: int,
    seed: SourceCatalog | None = None,
) -> ResearcherFindings:
    """Everything the supervisor keeps from one researcher run.

    The passages a researcher was shown are evidence in their own right: when it wrote fewer
    findings than a unit may keep (a small model writes one or two, or none, or copies its
    results back), the rest are the passage sentences that best match its topic, quoted
    (`engine/sourcing/extractive.py`), besides what its own findings state already.
    """

    def evidence(text: str) -> list[EvidenceRecord]:
        return evidence_from_text(
            text,
            registry,
            unit_id=unit_id,
            max_claims=max_claims,
            max_sources_per_claim=max_sources_per_claim,
        )

    text = sourced_text(final_message_text(messages), messages, seed)
    task = topic_of(messages)
    assigned = topic_without_question(task)
    records = _numbered_after(
        [], [r for r in evidence(text) if not restates_task(r.claim, assigned)], unit_id
    )
    if len(records) < max_claims:
        catalog = numbering_of(messages, seed)
        own = [record.claim for record in records]
        wanted = max_claims - len(records)
        quoted = quoted_findings(topic_focus(task), catalog, wanted, besides=own)
        if quoted:
            # `besides` kept out every quote stating what `own` states, word for word included.
            more = evidence(complete_references(quoted, catalog))
            records = [*records, *_numbered_after(records, more, unit_id)]
            text = complete_references(f"{body_of(text).rstrip()}\n{quoted}".lstrip(), catalog)
    return ResearcherFindings(
        final_text=text,
        notes=compress_notes(text, max_bullets=max_bullets, word_budget=word_budget),
        raw_notes=raw_notes_from(messages),
        records=records,
        tool_call_count=count_tool_calls(messages),
    )


def _numbered_after(
    records: Sequence[EvidenceRecord], more: Sequence[EvidenceRecord], unit_id: str
) -> list[EvidenceRecord]:
    """`more`, numbered on from `records` so every record of the unit keeps its own id."""
    start = len(records)
    return [
        record.model_copy(update={"id": f"{unit_id}-e{start + index}"})
        for index, record in enumerate(more, 1)
    ]


def unit_findings(
    messages: Sequence[BaseMessage],
    registry: SourceRegistry,
    unit_id: str,
    settings: Settings,
    *,
    seed: SourceCatalog | None = None,
) -> ResearcherFindings:
    """`findings_from_messages` within the evidence and notes caps the settings give."""
    return findings_from_messages(
        messages,
        registry,
        unit_id=unit_id,
        max_claims=settings.max_evidence_claims_per_research_unit,
        max_sources_per_claim=settings.max_source_urls_per_claim,
        max_bullets=settings.supervisor_notes_max_bullets,
        word_budget=settings.supervisor_notes_word_budget,
        seed=seed,
    )
