"""What the writer is given for one report section: the claims of its track, each with the
passages it came from, numbered, within a prompt size the model's context allows.

Deterministic and model-free. The numbers are the section's own; each passage's locator
maps them back to the sources the passages came from, so a written sentence's `[n]` becomes
a source on the engine's side and never depends on a model copying a URL.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.config import Settings
from engine.nodes.common import plan_of
from engine.nodes.track_coverage import tracks_of_unit
from engine.prompt_blocks import SECTION_INPUT_HEADING
from engine.schemas import ResearchPlan, ResearchTrack
from engine.text.pointers import without_pointers
from engine.text.sentences import PROSE_SENTENCE_BREAK_RE
from engine.text.words import content_tokens

PASSAGE_CHARS = 700
# Prompt sizing: what one section reply may take, what the instructions take, and a floor on
# characters per token (URLs and code run about 2.5; prose about 4) so the estimate errs long.
SECTION_OUTPUT_TOKENS = 700
INSTRUCTION_TOKENS = 700
MIN_CHARS_PER_TOKEN = 2.0
# A CPU model reads a prompt at tens of tokens a second: a section never needs more.
MAX_SECTION_INPUT_TOKENS = 3_000


@dataclass(frozen=True)
class NumberedPassage:
    number: int
    locator: str
    title: str
    text: str


@dataclass
class SectionInput:
    """One section's heading, its track, and its numbered passages and findings."""

    heading: str
    track: str
    question: str
    passages: list[NumberedPassage] = field(default_factory=list)
    findings: list[tuple[str, list[int]]] = field(default_factory=list)

    def passage_texts(self) -> dict[int, str]:
        return {passage.number: passage.text for passage in self.passages}

    def payload(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "section": self.heading,
            "track": self.track,
            "passages": [
                {"id": p.number, "source": p.title, "text": p.text} for p in self.passages
            ],
            "findings": [{"text": text, "passages": ids} for text, ids in self.findings],
        }

    def prompt(self) -> str:
        return f"{SECTION_INPUT_HEADING}\n{json.dumps(self.payload(), ensure_ascii=False)}"


def section_input_chars(settings: Settings) -> int:
    """The characters one section's input may take in the writer's prompt."""
    window = settings.model_max_input_tokens
    room = window - SECTION_OUTPUT_TOKENS - INSTRUCTION_TOKENS
    return int(max(0, min(room, MAX_SECTION_INPUT_TOKENS)) * MIN_CHARS_PER_TOKEN)


def report_plan(state: Mapping[str, Any]) -> ResearchPlan:
    """The approved plan; without one, the question is the report's one track."""
    approved = plan_of(state.get("plan"))
    if approved is not None:
        return approved
    question = " ".join(str(state.get("question") or "Research").split())[:190] or "Research"
    title = question if len(question) >= 3 else "Research findings"
    # Constructed, not validated: an approved plan has 3 to 6 tracks, this stand-in one.
    track = ResearchTrack(title=title, section="Findings", queries=[title])
    return ResearchPlan.model_construct(scope=title, tracks=[track])


def section_groups(
    plan: ResearchPlan,
    records: Sequence[EvidenceRecord],
    units: Mapping[str, Mapping[str, Any]],
) -> list[tuple[str, str, list[EvidenceRecord], int]]:
    """The report's sections in order: (heading, track title, its records, track index),
    the findings of no track last (index -1) when there are any."""
    by_track, other = records_by_track(plan, records, units)
    groups = [(track.section, track.title, by_track[i], i) for i, track in enumerate(plan.tracks)]
    if other:
        groups.append(("Further findings", "Further findings", other, -1))
    return groups


def records_by_track(
    plan: ResearchPlan,
    records: Sequence[EvidenceRecord],
    units: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[int, list[EvidenceRecord]], list[EvidenceRecord]]:
    """Each track's records (by the unit that found them), and those of no track."""
    by_track: dict[int, list[EvidenceRecord]] = {i: [] for i in range(len(plan.tracks))}
    other: list[EvidenceRecord] = []
    seen: set[str] = set()
    for record in records:
        key = " ".join(record.claim.casefold().split())
        if key in seen:
            continue  # one claim written down by two units is one finding
        seen.add(key)
        unit = units.get(record.research_unit_id)
        tracks = sorted(tracks_of_unit(unit, plan)) if unit is not None else []
        if len(plan.tracks) == 1:
            tracks = [0]  # the question as the one track: every finding is its own
        if tracks:
            by_track[tracks[0]].append(record)
        else:
            other.append(record)
    return by_track, other


def best_passage(claim: str, texts: Sequence[str]) -> str:
    """The text among a source's passages that shares most words with the claim."""
    words = content_tokens(claim)
    best, best_share = "", -1.0
    for text in texts:
        share = len(words & content_tokens(text)) / (len(words) or 1)
        if share > best_share:
            best, best_share = text, share
    return best


def _clip_around(text: str, claim: str) -> str:
    """At most PASSAGE_CHARS of `text`, around where the claim's words are, less the sentences
    that only send the reader elsewhere ("See Section 20.10 for more details."): a writer given
    one repeats it, and the room is the passage's."""
    flat = " ".join(text.split())
    # A passage that is all pointers stays as it is: the claim came from it.
    text = (
        " ".join(
            sentence
            for sentence in PROSE_SENTENCE_BREAK_RE.split(flat)
            if without_pointers(sentence)
        )
        or flat
    )
    if len(text) <= PASSAGE_CHARS:
        return text
    words = content_tokens(claim)
    step = PASSAGE_CHARS // 2
    starts = range(0, max(1, len(text) - PASSAGE_CHARS + step), step)
    start = max(starts, key=lambda s: len(words & content_tokens(text[s : s + PASSAGE_CHARS])))
    piece = text[start : start + PASSAGE_CHARS]
    return ("… " if start else "") + piece + (" …" if start + PASSAGE_CHARS < len(text) else "")


def section_input(
    heading: str,
    track: str,
    question: str,
    records: Sequence[EvidenceRecord],
    registry: SourceRegistry,
    budget_chars: int,
) -> SectionInput:
    """The section's findings with their passages, numbered, until the budget is spent: a
    finding whose passages do not fit is left out, so the prompt never outgrows it."""
    built = SectionInput(heading, track, question)
    used = len(built.prompt())
    numbers: dict[tuple[str, str], int] = {}
    for record in records:
        ids: list[int] = []
        added: list[NumberedPassage] = []
        for source in record.source_urls:
            text = best_passage(record.claim, registry.passages(source)) or record.claim
            text = _clip_around(text, record.claim)
            key = (source, text)
            if key in numbers:
                ids.append(numbers[key])
                continue
            number = len(numbers) + len(added) + 1
            title = registry.title_for(source) or source
            added.append(NumberedPassage(number, source, title, text))
            ids.append(number)
        claim = " ".join(record.claim.split())
        cost = sum(len(json.dumps([p.title, p.text], ensure_ascii=False)) + 24 for p in added)
        cost += len(json.dumps(claim, ensure_ascii=False)) + 30
        if used + cost > budget_chars:
            continue
        used += cost
        for passage in added:
            numbers[(passage.locator, passage.text)] = passage.number
            built.passages.append(passage)
        built.findings.append((claim, ids))
    return built
