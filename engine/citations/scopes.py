"""Numbering scopes: reports whose sections each list their own sources from 1 again.

A model writing a long report often closes every section with its own "Sources:" list, each
starting at [1]. A marker then means the entry of the list that closes its part of the report
(the prose after the last list belongs to the last list). To keep every such source, the
later lists' numbers are shifted above the earlier ones, and so are their markers.
"""

from __future__ import annotations

from engine.citations.entries import SourceEntry
from engine.citations.sections import ParsedReport


def numbering_offsets(parsed: ParsedReport) -> dict[int, int]:
    """What to add to the numbers of each block (entry or prose) so that numbers are unique.

    Empty unless two headed sections list the same number: one list numbered throughout, or
    lists that continue each other's numbering, need no shifting.
    """
    sections = [(heading, entries) for heading, entries in parsed.sections if heading is not None]
    if len(sections) < 2:
        return {}
    numbers = [{_number(parsed, index) for index in entries} for _, entries in sections]
    overlapping = any(
        numbers[i] & numbers[j] for i in range(len(numbers)) for j in range(i + 1, len(numbers))
    )
    if not overlapping:
        return {}
    offsets: dict[int, int] = {}
    starts: list[tuple[int, int]] = []  # (heading block index, offset of that section)
    highest = 0
    for (heading, entries), listed in zip(sections, numbers, strict=True):
        offset = highest
        starts.append((heading, offset))
        for index in entries:
            offsets[index] = offset
        highest = offset + max(listed, default=0)
    for index, _ in parsed.prose_blocks():
        following = next((offset for heading, offset in starts if heading > index), None)
        offsets[index] = following if following is not None else starts[-1][1]
    return offsets


def _number(parsed: ParsedReport, index: int) -> int:
    block = parsed.blocks[index]
    assert isinstance(block, SourceEntry)
    return block.number


def shift_entries(parsed: ParsedReport, offsets: dict[int, int]) -> None:
    """Renumber the entries of `parsed` in place by their offsets."""
    if not offsets:
        return
    for index, block in enumerate(parsed.blocks):
        if isinstance(block, SourceEntry) and offsets.get(index):
            parsed.blocks[index] = block._replace(number=block.number + offsets[index])
