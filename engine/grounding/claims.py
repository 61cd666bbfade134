"""The sentences of a report's prose, each with the citation numbers it carries."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from engine.citations.markers import MARKER_PATTERN, find_inline_markers
from engine.citations.sections import parse_report

# A sentence ends at . ! or ? before a space or the end (not inside `functools.partial`);
# markers written after its full stop ("… shootout. [1]", "… pipe. 【4†L1-L5】") still belong
# to it.
_MARKER_AFTER = rf"(?:\s*(?:{MARKER_PATTERN}))*"
_NOT_AN_END = r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)"
SENTENCE = re.compile(rf".+?(?:{_NOT_AN_END}[.!?]+{_MARKER_AFTER}(?=\s|$)|$)")
# Headings, tables, code, quotes; and a line wholly in `_emphasis_`, which is how the engine
# writes its own notices about the report (a track not researched, nothing found): no claims.
_SKIPPED_LINE = re.compile(r"^\s*(?:#{1,6}\s|\||```|~~~|>|_[^_\s][^\n]*_\s*$)")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)(?!\s*(?:[-*+]|\d+[.)])\s)")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Sentence:
    """A sentence of the prose: where it sits in its line, and the numbers it cites."""

    line: int
    start: int
    end: int
    text: str
    numbers: tuple[int, ...]


def strip_markers(text: str) -> str:
    """`text` without its citation markers, in whatever style they were written."""
    stripped = text
    for marker in reversed(find_inline_markers(text)):
        stripped = stripped[: marker.start] + stripped[marker.end :]
    return stripped


def without_markers(text: str) -> str:
    """`text` with citation markers out and spacing folded: a sentence's identity."""
    return _WHITESPACE.sub(" ", strip_markers(text)).strip().rstrip(".!?").strip().lower()


def prose_line_count(report: str) -> int:
    """How many leading lines of `report` are prose: the sources section starts after them.

    The sources section is the one that ends the report: a references list a model wrote
    midway is prose to check, not the end of what is checked.
    """
    parsed = parse_report(report)
    if not parsed.sections:
        return len(report.split("\n"))
    heading, entries = parsed.sections[-1]
    start = heading if heading is not None else min(entries, default=len(parsed.blocks))
    return sum(_line_count(block) for block in parsed.blocks[:start])


def _line_count(block: object) -> int:
    text = block if isinstance(block, str) else getattr(block, "line", "")
    return len(str(text).split("\n"))


def sentences(report: str, known_numbers: Collection[int] | None = None) -> Iterator[Sentence]:
    """Every sentence of the prose above the sources section, skipping code, tables, quotes."""
    lines = report.split("\n")
    in_code = False
    for index, line in enumerate(lines[: prose_line_count(report)]):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or not line.strip() or _SKIPPED_LINE.match(line):
            continue
        if _INDENTED_CODE.match(line) and (index == 0 or not lines[index - 1].strip()):
            continue  # an indented code block (a paragraph's continuation lines are not)
        offset = 0
        list_mark = LIST_MARK.match(line)
        if list_mark:
            offset = list_mark.end()
        for match in SENTENCE.finditer(line, offset):
            text = match.group(0)
            if not text.strip():
                continue
            numbers: list[int] = []
            for marker in find_inline_markers(text, known_numbers):
                numbers += [n for n in marker.numbers if n not in numbers]
            yield Sentence(index, match.start(), match.end(), text, tuple(numbers))
