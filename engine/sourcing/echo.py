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
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from engine.sourcing.source_numbers import MARKER, SourceCatalog, body_of
from engine.text.markers import NUMBERED_MARKER

_HEADER = re.compile(rf"^\s*{NUMBERED_MARKER}\s+(.+?)\s*$")

# Text under a header that is this long and found word for word in a retrieved passage was
# copied from it; a short line could be a quote the answer makes on purpose.
MIN_COPIED_CHARS = 60


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def _titles_of(catalog: SourceCatalog) -> set[str]:
    return {_folded(title) for title, _locator in catalog.entries.values()}


def _names_a_shown_result(header: re.Match[str], titles: AbstractSet[str]) -> bool:
    """The header line (`[2] Title`) is a shown result's, as the search showed it."""
    return _folded(header.group(2)) in titles


def _is_copied_result(lines: list[str], titles: set[str], passages: list[str]) -> bool:
    """The paragraph is a search result as the search showed it: its header names a result's
    title, or (a header for several results, `[1, 2] Title…`, its title mixed up) the text
    under it is a retrieved passage copied word for word."""
    header = _HEADER.match(lines[0])
    if header is None:
        return False
    if _names_a_shown_result(header, titles):
        return True
    copied = _folded(" ".join(lines[1:]))
    return len(copied) >= MIN_COPIED_CHARS and any(copied in passage for passage in passages)


# A paragraph cut short by the reply's token cap is still the paragraph written before it.
MIN_REPEATED_CHARS = 80


def _written_before(folded: str, seen: set[str]) -> bool:
    """The paragraph was written already, whole or up to where the reply was cut off."""
    if folded in seen:
        return True
    if len(folded) < MIN_REPEATED_CHARS:
        return False
    return any(earlier.startswith(folded) for earlier in seen)


# A lead-in ("Thus you may log it this way:") with nothing after it, its citations aside.
_HANGING_LEAD_IN = re.compile(rf"(?:^|(?<=[.!?])\s+)[^.!?\n]*:(?:\s*{MARKER.pattern})*\s*$")


def _without_inline_headers(body: str, catalog: SourceCatalog) -> str:
    """`body` without result header lines run into its text ("…this way: [1] mod_deflate -
    Apache HTTP Server Version 2.4"): the marker stays, the copied title goes. A lead-in
    left with nothing to introduce at the end of the answer goes too."""
    cleaned = body
    for number, (title, _locator) in catalog.entries.items():
        # After text on its line: a header opening a paragraph is a copied result, read below.
        copied = re.compile(rf"(?<=\S)([ \t]+\[{number}\])[ \t]+{re.escape(title)}[ \t]*(?=\n|$)")
        cleaned = copied.sub(r"\1", cleaned)
    if cleaned == body:
        return body
    kept = cleaned.rstrip()
    return _HANGING_LEAD_IN.sub("", kept).rstrip() + cleaned[len(kept) :]


def without_echo(answer: str, catalog: SourceCatalog) -> str:
    """`answer` without copied search results and without paragraphs written twice; empty
    when it was nothing but copies."""
    written = body_of(answer)
    tail = answer[len(written) :]
    body = _without_inline_headers(written, catalog)
    answer = body + tail
    titles = _titles_of(catalog)
    passages = [_folded(passage) for passage in catalog.passages.values()]
    kept: list[str] = []
    seen: set[str] = set()
    paragraphs = _PARAGRAPH_BREAK.split(body)
    for paragraph in paragraphs:
        lines = paragraph.strip("\n").split("\n")
        if titles and _is_copied_result(lines, titles, passages):
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


@dataclass(frozen=True)
class _Shown:
    """The results a model was shown, folded once for the checks a streamed reply gets."""

    titles: frozenset[str]
    passages: tuple[str, ...]


def _shown(catalog: SourceCatalog) -> _Shown:
    passages = tuple(_folded(passage) for passage in catalog.passages.values())
    return _Shown(frozenset(_titles_of(catalog)), passages)


def copy_start(text: str, catalog: SourceCatalog, *, with_passage: bool = False) -> int | None:
    """Where the first paragraph opening with a whole header line of a result the model was
    shown (`[2] Title`) begins, the start of a copied result; None when no paragraph does.

    A references list written after the answer is the answer's own, and a header line still
    being written ("[2] json" may yet become "[2] json.dumps escapes") is not one yet. With
    `with_passage`, a header counts only once the text under it (its `URL:` or `Document:`
    line aside) repeats a shown passage word for word, for `MIN_COPIED_CHARS` or more: a
    sources list without its heading names results too, and copies none.
    """
    return _copy_start(text, _shown(catalog), with_passage)


def _copy_start(text: str, shown: _Shown, with_passage: bool) -> int | None:
    if not shown.titles:
        return None
    body = body_of(text)
    start = 0
    for match in [*_PARAGRAPH_BREAK.finditer(body), None]:
        end = match.start() if match is not None else len(body)
        first, finished, rest = body[start:end].lstrip("\n").partition("\n")
        header = _HEADER.match(first) if finished else None
        named = header is not None and _names_a_shown_result(header, shown.titles)
        if named and (not with_passage or _repeats_a_passage(rest, shown.passages)):
            return start
        start = match.end() if match is not None else end
    return None


def _repeats_a_passage(under_header: str, passages: Sequence[str]) -> bool:
    lines = under_header.split("\n")
    if lines and lines[0].startswith(("URL: ", "Document: ")):
        lines = lines[1:]
    copied = _folded(" ".join(lines))
    return len(copied) >= MIN_COPIED_CHARS and any(copied in passage for passage in passages)


def copy_watch(catalog: SourceCatalog, *, with_passage: bool = False) -> Callable[[str], bool]:
    """A watch for a streamed reply: true once `copy_start` finds a copied result in the text
    so far. The shown results are folded once, not on every check of the stream."""
    shown = _shown(catalog)
    return lambda text: _copy_start(text, shown, with_passage) is not None


def copying_results(catalog: SourceCatalog) -> Callable[[str], bool]:
    """A watch for a streamed answer: true once a paragraph of it opens with a whole header
    line of a result the model was shown, the start of a copied result (`copy_start`).

    What came before that line is the answer's own and is kept; nothing after it would be.
    """
    return copy_watch(catalog)
