"""One bullet per list item in a report.

A writer (or a claim quoted from a bulleted source) sometimes puts a bullet after the list's
own (`- - claim`, `- • claim`): Markdown reads that as a list nested inside an empty item, and
every reader sees two bullets for one point. Code blocks are left as they are.
"""

from __future__ import annotations

import re

_DOUBLED = re.compile(r"^(\s*)([-*+•])[ \t]+(?:[-*+•▪‣◦][ \t]+)+(?=\S)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def one_bullet_per_item(text: str) -> str:
    lines = text.split("\n")
    in_code = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_code = not in_code
        elif not in_code:
            lines[index] = _DOUBLED.sub(r"\1\2 ", line)
    return "\n".join(lines)
