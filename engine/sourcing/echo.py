"""Take the search results a model copied into its answer back out.

A small model asked to answer from search results sometimes copies them instead: each
result's `[n] Title` line with its passage below, pages the question never asked about
included, and its own paragraphs written twice over. Every copied sentence is in a source,
so citation checks and grounding keep it all, and the reader gets the tool output as the
answer. A paragraph that opens with a result's header line as the search showed it is that
result, not an answer; a paragraph written a second time adds nothing, even when the token
cap cut the second copy short. Both go; the answer's
own sentences stay, and what is left is checked as usual.
"""

from __future__ import annotations

import re

from engine.sourcing.source_numbers import SourceCatalog, body_of

_HEADER = re.compile(r"^\s*\[(\d+)\]\s+(.+?)\s*$")


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _is_result_header(line: str, titles: set[str]) -> bool:
    header = _HEADER.match(line)
    return header is not None and _folded(header.group(2)) in titles


# A paragraph cut short by the reply's token cap is still the paragraph written before it.
MIN_REPEATED_CHARS = 80


def _written_before(folded: str, seen: set[str]) -> bool:
    """The paragraph was written already, whole or up to where the reply was cut off."""
    if folded in seen:
        return True
    if len(folded) < MIN_REPEATED_CHARS:
        return False
    return any(earlier.startswith(folded) for earlier in seen)


def without_echo(answer: str, catalog: SourceCatalog) -> str:
    """`answer` without copied search results and without paragraphs written twice; empty
    when it was nothing but copies."""
    body = body_of(answer)
    tail = answer[len(body) :]
    titles = {_folded(title) for title, _locator in catalog.entries.values()}
    kept: list[str] = []
    seen: set[str] = set()
    paragraphs = re.split(r"\n[ \t]*\n", body)
    for paragraph in paragraphs:
        lines = paragraph.strip("\n").split("\n")
        if titles and _is_result_header(lines[0], titles):
            continue
        folded = _folded(paragraph)
        if folded and _written_before(folded, seen):
            continue
        seen.add(folded)
        kept.append(paragraph)
    if len(kept) == len(paragraphs):
        return answer
    cleaned = "\n\n".join(paragraph.strip("\n") for paragraph in kept if paragraph.strip())
    if not cleaned.strip():
        return ""  # all of it was copied: there is no answer to keep
    return cleaned.rstrip() + ("\n\n" + tail.lstrip("\n") if tail else "\n")
