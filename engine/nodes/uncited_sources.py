"""After grounding: sources that only removed sentences cited leave the report and its audit."""

from __future__ import annotations

from dataclasses import dataclass

from engine.citations.uncited import (
    NEVER_CITED_REASON,
    UNCITED_REASON,
    cited_numbers,
    drop_uncited_sources,
)
from engine.events import CitationAuditEntry, ClaimSupport


@dataclass(frozen=True)
class Renumbered:
    """The grounded report with its sources list closed up, and the audit numbered to match."""

    report: str
    kept: list[CitationAuditEntry]
    uncited: list[CitationAuditEntry]
    claims: list[ClaimSupport]


def close_up_sources(
    before: str, grounded: str, kept: list[CitationAuditEntry], claims: list[ClaimSupport]
) -> Renumbered:
    """`grounded` without the sources no sentence cites (`before` is the report grounding
    read: a source cited there lost its sentences to grounding; one not cited there never
    was); kept citations and claims renumbered as the report now shows."""
    closed = drop_uncited_sources(grounded)
    if not closed.dropped:
        return Renumbered(grounded, kept, [], claims)
    dropped = set(closed.dropped)
    cited_before = cited_numbers(before)
    still = [e for e in kept if e.number not in dropped]
    uncited = [
        CitationAuditEntry(
            number=e.number,
            source=e.source,
            reason=UNCITED_REASON if e.number in cited_before else NEVER_CITED_REASON,
        )
        for e in kept
        if e.number in dropped
    ]
    mapping = closed.renumbered
    return Renumbered(
        closed.report,
        [e.model_copy(update={"number": mapping.get(e.number, e.number)}) for e in still],
        uncited,
        [claim.model_copy(update={"numbers": _shown(claim.numbers, mapping)}) for claim in claims],
    )


def _shown(numbers: list[int], mapping: dict[int, int]) -> list[int]:
    """A claim's numbers as the report now shows them. A removed claim may name a source that
    is gone; its `sources` still say which page that was."""
    return [mapping[n] for n in numbers if n in mapping]
