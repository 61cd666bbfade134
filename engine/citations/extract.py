"""Grounded evidence from a researcher's final message, by citation parsing alone.

A researcher ends with prose carrying inline `[n]` markers and a sources list. Each sentence
that cites a listed source becomes a claim bound to that source's URL or document key. No
model is asked anything, so the same message always yields the same evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from engine.citations.evidence import EvidenceRecord
from engine.citations.parse import MARKER_PATTERN, find_inline_markers, parse_report, rewrite_body
from engine.citations.registry import SourceRegistry
from engine.citations.uncertainty import flag_uncertainty

# A sentence ends at . ! or ? (after any closing quote or bracket) and takes the citation
# markers that follow it, as in "Tasks run concurrently. [2]".
_SENTENCE_END_RE = re.compile(
    rf"[.!?]+[\"'”’)\]]*(?P<markers>(?:[ \t]*(?:{MARKER_PATTERN}))*)(?=\s|$)"
)
# Words whose full stop does not end a sentence.
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "dr", "mr", "mrs", "ms", "prof", "fig", "al", "no",
     "p", "pp", "st", "inc", "ltd", "jr", "sr", "u.s", "approx", "ca", "vol", "ed", "eq"}
)  # fmt: skip
_LAST_WORD_RE = re.compile(r"([\w.]+)[.!?]+[\"'”’)\]]*$")
_BLOCK_PREFIX_RE = re.compile(r"^\s*(?:[-*+•]\s+|\d{1,3}[.)]\s+|>\s*)+")
_SEPARATE_LINE_RE = re.compile(r"^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|>|\|)")
_HEADING_LINE_RE = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE_RE = re.compile(r"^\s*(?:```|~~~)")
_SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+([.,;:!?])")


class CitedSentence(BaseModel):
    """A sentence with its markers removed and the sources its markers point at."""

    model_config = ConfigDict(frozen=True)

    sentence: str = Field(min_length=1)
    sources: list[str] = Field(min_length=1)


def _text_units(block: str) -> Iterator[str]:
    """Paragraphs and list items of prose; headings and code blocks are skipped."""
    paragraph: list[str] = []
    in_fence = False
    for line in block.split("\n"):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
            if paragraph:
                yield " ".join(paragraph)
                paragraph = []
            continue
        if in_fence:
            continue
        if not line.strip() or _HEADING_LINE_RE.match(line) or _SEPARATE_LINE_RE.match(line):
            if paragraph:
                yield " ".join(paragraph)
                paragraph = []
            if line.strip() and not _HEADING_LINE_RE.match(line):
                paragraph.append(_BLOCK_PREFIX_RE.sub("", line).strip())
            continue
        paragraph.append(line.strip())
    if paragraph:
        yield " ".join(paragraph)


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph, each keeping the citation markers that follow its stop."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        if not match.group("markers"):
            last = _LAST_WORD_RE.search(text[start : match.end()])
            if last and last.group(1).lower().rstrip(".") in _ABBREVIATIONS:
                continue
        sentence = text[start : match.end()].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _without_markers(sentence: str, known_numbers: set[int]) -> str:
    stripped = rewrite_body(sentence, lambda _number: None, known_numbers)
    return _SPACE_BEFORE_PUNCT_RE.sub(r"\1", " ".join(stripped.split()))


def extract_cited_sentences(text: str) -> list[CitedSentence]:
    """Every sentence that cites a listed source, with that source's URL or document key.

    Sources are in marker order without repeats; sentences whose markers resolve to no entry
    are left out.
    """
    parsed = parse_report(text)
    locators: dict[int, str] = {}
    for entry in parsed.entries:
        if entry.locator is not None:
            locators.setdefault(entry.number, entry.locator)
    known = parsed.entry_numbers
    found: list[CitedSentence] = []
    for _, block in parsed.body_blocks():
        for unit in _text_units(block):
            for sentence in split_sentences(unit):
                cited = [
                    locators[number]
                    for marker in find_inline_markers(sentence, known)
                    for number in marker.numbers
                    if number in locators
                ]
                if not cited:
                    continue
                clean = _without_markers(sentence, known)
                if clean:
                    found.append(CitedSentence(sentence=clean, sources=list(dict.fromkeys(cited))))
    return found


def evidence_from_message(
    text: str,
    research_unit_id: str,
    *,
    registry: SourceRegistry | None = None,
    max_claims: int | None = None,
    max_sources_per_claim: int | None = None,
) -> list[EvidenceRecord]:
    """Evidence records for the cited sentences of a researcher's final message.

    With a registry, each source is resolved to the URL or key a tool really returned and
    sources it does not know are dropped (a sentence left with none is skipped). Confidence is
    a fixed 0.5: it is not the model's to judge. Ids are `<unit>-e<n>`, stable for a message.
    """
    records: list[EvidenceRecord] = []
    for cited in extract_cited_sentences(text):
        sources = cited.sources
        if registry is not None:
            resolved = (registry.lookup(source) for source in sources)
            sources = list(dict.fromkeys(s for s in resolved if s is not None))
        if max_sources_per_claim is not None:
            sources = sources[:max_sources_per_claim]
        if not sources:
            continue
        records.append(
            EvidenceRecord(
                id=f"{research_unit_id or 'evidence'}-e{len(records) + 1}",
                claim=cited.sentence,
                source_urls=sources,
                confidence=0.5,
                contradiction_or_uncertainty=flag_uncertainty(cited.sentence),
                research_unit_id=research_unit_id,
            )
        )
        if max_claims is not None and len(records) >= max_claims:
            break
    return records
