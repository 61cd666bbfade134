"""Finding numbered citations in a report so the reader can jump from one to its source.

Rendering concern only: which `[n]` markers appear where. Which citations are valid is decided
by the engine's verifier and arrives in `ReportReady.kept_citations`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord
    from engine.events import CitationAuditEntry, ReportReady

# `[3]` or `[3, 5]`, not a Markdown link `[text](url)` and not inside a word.
MARKER = re.compile(r"(?<![\w\]])\[(\d+(?:\s*,\s*\d+)*)\](?!\()")
SOURCES_HEADING = re.compile(r"^#{1,6}\s+(sources|references)\s*$", re.IGNORECASE | re.MULTILINE)
CITATION_LINK_PREFIX = "#cite-"
_LIST_ITEM = re.compile(r"^(?:[-*+]\s|\d+[.)]\s)")


@dataclass(frozen=True)
class CitationMark:
    number: int
    context: str


def body_of(report: str) -> str:
    """The report without its trailing Sources section (its entries are not citations)."""
    match = SOURCES_HEADING.search(report)
    return report[: match.start()] if match else report


def citation_marks(report: str) -> list[CitationMark]:
    """Every citation in reading order, each with the sentence it sits in, as the engine's
    own sentence splitting cuts it (a dotted name such as `asyncio.to_thread()` does not
    end a sentence)."""
    body = body_of(report)
    marks: list[CitationMark] = []
    for match in MARKER.finditer(body):
        context = " ".join(sentence_at(body, match.start()).split())
        for number in match.group(1).split(","):
            marks.append(CitationMark(int(number), context))
    return marks


def sentence_at(text: str, position: int) -> str:
    """The sentence of `text` that holds `position`, citation markers after its stop included."""
    from engine.grounding.claims import SENTENCE

    start, end = _block_around(text, position)
    # Newlines become spaces (same offsets): a hard-wrapped sentence is one sentence.
    block = text[start:end].replace("\n", " ")
    offset = position - start
    for match in SENTENCE.finditer(block):
        if match.start() <= offset < match.end():
            return match.group(0)
    return block


def _block_around(text: str, position: int) -> tuple[int, int]:
    """The paragraph around `position`: from the blank or heading line before it to the
    blank line after it."""
    start = position
    while start > 0:
        line_start = text.rfind("\n", 0, start - 1) + 1
        line = text[line_start : start - 1] if start - 1 > line_start else ""
        if not line.strip() or line.lstrip().startswith("#"):
            break
        start = line_start
    start = text.rfind("\n", 0, position) + 1 if start == position else start
    end = text.find("\n\n", position)
    return start, len(text) if end < 0 else end


def link_citations(report: str) -> str:
    """Make each `[n]` in the body a link the Markdown widget reports when clicked."""
    body = body_of(report)
    rest = report[len(body) :]

    def to_links(match: re.Match[str]) -> str:
        numbers = [number.strip() for number in match.group(1).split(",")]
        links = ", ".join(f"[{n}]({CITATION_LINK_PREFIX}{n})" for n in numbers)
        return f"\\[{links}\\]"

    return MARKER.sub(to_links, body) + sources_as_list(rest)


def sources_as_list(section: str) -> str:
    """The Sources section with one entry per line.

    Markdown joins consecutive lines into one paragraph, so entries written one per line
    (`[1] https://…`) would run together; each becomes a list item unless it already is one.
    """
    lines = section.splitlines()
    out: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        is_entry = (
            index > 0
            and stripped
            and not _LIST_ITEM.match(stripped)
            and not stripped.startswith(("#", ">"))
        )
        out.append(f"- {stripped}" if is_entry else line)
    return "\n".join(out) + ("\n" if section.endswith("\n") else "")


def source_for(report: ReportReady, number: int) -> CitationAuditEntry | None:
    for entry in report.kept_citations:
        if entry.number == number:
            return entry
    return None


def evidence_citing(source: str, records: list[EvidenceRecord]) -> list[EvidenceRecord]:
    """Ledger records bound to this source (the evidence behind the citation)."""
    wanted = source.rstrip("/")
    return [
        record for record in records if any(url.rstrip("/") == wanted for url in record.source_urls)
    ]
