"""Drop a report section that says, word for word, what an earlier section said.

A small model asked for one section per plan track writes the first section's text again
under every later heading: the "Pool" and "Agent" sections of a report on undici repeated its
"Client" section bullet for bullet. A copy tells the reader nothing and hides that the track
went unanswered, so the copy leaves with its heading. Only a whole section that repeats
another is dropped: a summary that restates one sentence of each section stays.
"""

from __future__ import annotations

import re

from engine.grounding.claims import without_markers

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")
_FENCE = re.compile(r"^\s*```")
# Fewer words than this in a section is too little to call a copy ("See below.").
MIN_COPIED_WORDS = 8


def without_repeated_sections(report: str) -> str:
    """`report` less each section whose body repeats an earlier section's body."""
    lines = report.split("\n")
    headings = _heading_lines(lines)
    seen: set[str] = set()
    dropped: list[tuple[int, int]] = []
    for position, (index, level) in enumerate(headings):
        end = next((i for i, lvl in headings[position + 1 :] if lvl <= level), len(lines))
        body = _body_key(lines[index + 1 : end])
        if len(body.split()) < MIN_COPIED_WORDS:
            continue
        if body in seen and not any(start <= index < stop for start, stop in dropped):
            dropped.append((index, end))
        seen.add(body)
    if not dropped:
        return report
    kept = [line for i, line in enumerate(lines) if not any(a <= i < b for a, b in dropped)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def _heading_lines(lines: list[str]) -> list[tuple[int, int]]:
    """(line index, level) of each heading outside code blocks."""
    found: list[tuple[int, int]] = []
    in_code = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_code = not in_code
            continue
        match = None if in_code else _HEADING.match(line)
        if match is not None:
            found.append((index, len(match.group(1))))
    return found


def _body_key(lines: list[str]) -> str:
    """A section's text as compared: markers, case, spacing and blank lines aside."""
    return "\n".join(without_markers(line) for line in lines if line.strip())
