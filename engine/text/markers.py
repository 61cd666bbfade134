"""Numbered citation markers (`[1]`, `[1, 3]`, `[2–4]`) as the engine itself writes them.

The many styles models write (`[^1]`, `【1†L2】`, `(Source 1)`, superscripts) are read by
`engine.citations.markers`; this module holds the engine's own bracketed form, which every
other package matches, strips or writes.
"""

from __future__ import annotations

import re


def cite_sentence(sentence: str, number: int) -> str:
    """`sentence` with `[number]` before its final stop (or at its end)."""
    stripped = sentence.rstrip()
    if stripped and stripped[-1] in ".!?":
        return f"{stripped[:-1]} [{number}]{stripped[-1]}"
    return f"{stripped} [{number}]"


# The numbers of one marker: `1`, `1, 3`, `2-4`, `2–4`.
MARKER_NUMBERS = r"\d+(?:\s*[,–-]\s*\d+)*"
# The engine's own marker, its numbers as group 1: `[1]`, `[1, 3]`, `[2–4]`.
NUMBERED_MARKER = rf"\[({MARKER_NUMBERS})\]"
NUMBERED_MARKER_RE = re.compile(NUMBERED_MARKER)
# The same marker with the space before it, to take it out of a sentence.
SPACED_MARKER_RE = re.compile(rf"\s*{NUMBERED_MARKER}")
# A sentence ends at . ! or ? before a space or the end (not inside `functools.partial`);
# markers written after its full stop ("… shootout. [1]") still belong to it.
SENTENCE_WITH_MARKERS_RE = re.compile(rf".+?(?:[.!?]+(?:\s*\[{MARKER_NUMBERS}\])*(?=\s|$)|$)")
