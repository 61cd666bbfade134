"""A report as a Markdown file: every line the writer ended stays a line in any viewer.

The report keeps one sentence (or one source) per line; Markdown joins consecutive lines into
one paragraph, so a viewer showed each section, the Sources list too, as one block. In the
file each such line is a paragraph of its own. Lists, tables, quotes and code keep their
lines together.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_CONTINUATION = re.compile(r"^\s{2,}\S")


def _kind(line: str) -> str:
    """Which block a line belongs to: lines of the same kind stay together."""
    stripped = line.lstrip()
    if stripped.startswith("|"):
        return "table"
    if stripped.startswith(">"):
        return "quote"
    if _LIST_ITEM.match(line) or _CONTINUATION.match(line):
        return "list"
    if stripped.startswith("#"):
        return "heading"
    return "prose"


def markdown_file_text(report: str) -> str:
    """`report` with a blank line between two lines that Markdown would otherwise join."""
    out: list[str] = []
    in_code = False
    previous = ""
    for line in report.split("\n"):
        fence = bool(_FENCE.match(line))
        if not in_code and line.strip() and previous.strip():
            kind, before = _kind(line), _kind(previous)
            if kind != before or kind in ("prose", "heading"):
                out.append("")
        if fence:
            in_code = not in_code
        out.append(line)
        previous = "" if in_code and not fence else line
    return "\n".join(out)
