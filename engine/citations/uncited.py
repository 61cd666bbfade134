"""Sources that no sentence cites any more, taken out of the sources list.

Grounding removes the sentences their sources do not support. A source cited only by those
sentences would stay listed with nothing in the report pointing at it, and be counted as a
kept citation though the report no longer rests on it; so would a source the writer listed
and never cited. Such sources leave the list, the sources still cited are numbered 1..k again
(markers and list together, in one pass), and the caller moves their audit entries to the
removed ones with `UNCITED_REASON` or `NEVER_CITED_REASON`.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from engine.citations.markers import find_inline_markers
from engine.citations.parse import (
    SourceEntry,
    parse_report,
    render_report,
    rewrite_body,
    tidy_after_removal,
)

UNCITED_REASON = "cited_only_by_removed_sentences"
NEVER_CITED_REASON = "never_cited"


@dataclass(frozen=True)
class ClosedUp:
    """The report without uncited sources; old number -> new number of those kept."""

    report: str
    renumbered: dict[int, int] = field(default_factory=dict)
    dropped: tuple[int, ...] = ()


def cited_numbers(report: str) -> set[int]:
    """The source numbers the prose of `report` cites."""
    parsed = parse_report(report)
    return _cited(parsed.prose_blocks(), parsed.entry_numbers)


def _cited(prose_blocks: list[tuple[int, str]], known: set[int]) -> set[int]:
    cited: set[int] = set()
    for _, prose in prose_blocks:
        for marker in find_inline_markers(prose, known):
            cited.update(marker.numbers)
    return cited


def drop_uncited_sources(report: str, candidates: Collection[int] | None = None) -> ClosedUp:
    """`report` without the sources list entries (among `candidates`, when given) that its
    prose does not cite, the rest renumbered 1..k.

    A report whose prose cites nothing is left as it is: its banner says nothing is verified,
    and the list shows what was retrieved.
    """
    parsed = parse_report(report)
    known = parsed.entry_numbers
    cited = _cited(parsed.prose_blocks(), known)
    gone = (known if candidates is None else known & set(candidates)) - cited
    if not cited or not gone:
        return ClosedUp(report)
    replacements: dict[int, str | None] = {}
    renumbered: dict[int, int] = {}
    dropped: list[int] = []
    for index, block in enumerate(parsed.blocks):
        if not isinstance(block, SourceEntry):
            continue
        if block.number in gone:
            dropped.append(block.number)
            replacements[index] = None
            continue
        # A number listed twice keeps pointing at its first entry, as the sanitizer does.
        new_number = renumbered.setdefault(block.number, len(renumbered) + 1)
        if new_number != block.number:
            replacements[index] = block.render(number=new_number)
    removed = {index for index, value in replacements.items() if value is None}
    for heading in parsed.headings_left_empty(removed):
        replacements[heading] = None
    for index, prose in parsed.body_blocks():
        rewritten = rewrite_body(prose, renumbered.get, known, superscripts=False)
        if rewritten != prose:
            replacements[index] = rewritten
    text = tidy_after_removal(render_report(parsed, replacements), report)
    return ClosedUp(text, renumbered, tuple(dict.fromkeys(dropped)))
