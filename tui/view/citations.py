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
    """Every citation in reading order, each with the sentence around it."""
    body = body_of(report)
    marks: list[CitationMark] = []
    previous_end = 0
    for match in MARKER.finditer(body):
        # A marker written after the full stop cites the sentence before it.
        end = len(body[: match.start()].rstrip().rstrip("."))
        start = max(body.rfind(".", 0, end) + 1, body.rfind("\n\n", 0, end) + 1, previous_end)
        if start >= end:  # the marker follows another: both cite the same sentence
            start = max(body.rfind(".", 0, end) + 1, body.rfind("\n\n", 0, end) + 1)
        context = " ".join(_after_headings(body[start : match.end()]).split())
        previous_end = match.end()
        for number in match.group(1).split(","):
            marks.append(CitationMark(int(number), context))
    return marks


def _after_headings(text: str) -> str:
    """The sentence without the heading lines before it (`## Summary`)."""
    lines = text.split("\n")
    while len(lines) > 1 and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "\n".join(lines)


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
