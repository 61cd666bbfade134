"""The writer's draft read as structured output and checked against the evidence ledger.

A draft is claims bound to source ids: every cited sentence is a `Claim` whose ids are the
numbers it cites, and the Sources section maps each number to a source. The check holds
when every id a claim cites is listed and names a source of the ledger, and when the draft
cites something at all while the ledger holds evidence. What fails is said in words a
model can act on, so the writer can be asked again with the error fed back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.citations.evidence import EvidenceRecord
from engine.citations.grounding import Claim, Report, ReportSource
from engine.citations.registry import SourceRegistry
from engine.citations.sections import parse_sources_section
from engine.grounding.claims import sentences, strip_markers

MAX_ERRORS_LISTED = 8
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")
_MAX_QUOTED = 160


@dataclass(frozen=True)
class DraftCheck:
    """The draft as a `Report`, and what keeps it from standing on the ledger."""

    report: Report
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        """What is wrong, in a few words, for a progress line."""
        if not self.report.claims:
            return "the draft cites no source"
        return "the draft cites sources outside the evidence"

    @property
    def grounded_claims(self) -> int:
        return len(self.report.validate_grounding().claims)

    def feedback(self, ledger: Sequence[str]) -> str:
        """The errors as an instruction to the writer, with the sources it may cite."""
        listed = self.errors[:MAX_ERRORS_LISTED]
        more = len(self.errors) - len(listed)
        lines = ["## Your draft failed the check against the evidence ledger", ""]
        lines += [f"- {error}" for error in listed]
        if more > 0:
            lines.append(f"- and {more} more like these")
        lines += ["", "Cite only these sources, numbered in your own Sources section:"]
        lines += [f"- {source}" for source in ledger]
        return "\n".join(lines)


def _ledger_locators(records: Sequence[EvidenceRecord], registry: SourceRegistry) -> set[str]:
    return {
        registry.lookup(source) or source for record in records for source in record.source_urls
    }


def _quoted(text: str) -> str:
    plain = _SPACE_BEFORE_STOP.sub(r"\1", " ".join(strip_markers(text).split()))
    return plain if len(plain) <= _MAX_QUOTED else plain[: _MAX_QUOTED - 1].rstrip() + "…"


def check_draft(
    draft: str, records: Sequence[EvidenceRecord], registry: SourceRegistry
) -> DraftCheck:
    """Read `draft` into claims and sources and check each claim's ids against the ledger."""
    ledger = _ledger_locators(records, registry)
    sources: dict[str, ReportSource] = {}
    outside: dict[str, str] = {}  # number -> the locator listed there, not in the ledger
    for entry in parse_sources_section(draft):
        number, locator = str(entry.number), entry.locator
        if number in sources or number in outside or not locator:
            continue
        resolved = registry.lookup(locator)
        if resolved is not None and resolved in ledger:
            sources[number] = ReportSource(id=number, locator=resolved, title=entry.title)
        else:
            outside[number] = locator
    claims = [
        Claim(text=sentence.text, source_ids=[str(n) for n in sentence.numbers])
        for sentence in sentences(draft)
        if sentence.numbers
    ]
    report = Report(claims=claims, sources=list(sources.values()))
    errors: list[str] = []
    for claim in report.ungrounded_claims():
        for number in (sid for sid in claim.source_ids if sid not in sources):
            where = (
                f"lists {outside[number]}, which is not in the evidence ledger"
                if number in outside
                else "has no such entry"
            )
            errors.append(
                f'"{_quoted(claim.text)}" cites [{number}], but your Sources section {where}.'
            )
    if records and not claims:
        errors.append(
            "No sentence cites a source: end each factual sentence with the number of the "
            "source it comes from, as in [1]."
        )
    return DraftCheck(report, errors)
