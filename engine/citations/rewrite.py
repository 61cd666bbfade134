"""Rewriting a report's prose and reassembling it: one left-to-right pass, tidy deletions.

Verification, sanitization and evidence extraction all edit prose the same way: find tokens
(markers, URLs, links), replace or delete each, and never leave a space dangling before the
punctuation that followed a deleted token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from engine.citations.entries import LEAD_PATTERN, SourceEntry
from engine.citations.markers import (
    marker_tokens,
    render_numbers,
    superscripts_cite,
    token_numbers,
)
from engine.citations.scanning import (
    HTML_ANCHOR_RE,
    LINK_RE,
    Token,
    code_tokens,
    merge_tokens,
    scan_urls,
    trim_url,
)
from engine.citations.sections import ParsedReport

_PUNCTUATION_AFTER = ".,;:!?)]}"

# What may precede an entry label on its line: indentation, a bullet, bold.
_LINE_LEAD_RE = re.compile(LEAD_PATTERN)
# The characters of such a lead that are not whitespace (bullets and bold).
_LEAD_CHARS = "-*+•_"
_RISKY_BEFORE = frozenset("[]^,;-–0123456789")
_RISKY_AFTER = "[]:^0123456789("

# (start, end, replacement): replace `text[start:end]`, or delete it when the replacement is None.
Edit = tuple[int, int, "str | None"]
MarkerMap = Callable[[int], "int | None"]
UrlMap = Callable[[str], "str | None"]


@dataclass
class RewriteNotes:
    """Whether a rewrite deleted text where the joined remainder could form new structure.

    Deleting `[^1]` from `[2024] [^1]: note` leaves `[2024]: note`, a new entry. Such joins
    need a bracket, colon or digit next to the deletion, or a deletion at a line's start;
    callers re-check the result only when one happened, which keeps the common case cheap.
    """

    structural_risk: bool = False


def _delete_span(
    out: list[str], text: str, position: int, notes: RewriteNotes | None = None
) -> int:
    """Drop a deleted token's leading spaces so no space dangles before punctuation.

    `text[position:]` follows the deleted token. Returns how many of its characters to skip
    (the spaces after a token that began a line).
    """
    previous = next((piece for piece in reversed(out) if piece), "")
    if not previous or previous.endswith("\n"):
        if notes is not None:
            notes.structural_risk = True
        skip = position
        while skip < len(text) and text[skip] in " \t":
            skip += 1
        return skip - position
    following = text[position : position + 1]
    if not following or following in _PUNCTUATION_AFTER or following in " \t\n\r":
        while out and (not out[-1] or out[-1][-1] in " \t"):
            stripped = out[-1].rstrip(" \t")
            if stripped:
                out[-1] = stripped
                break
            out.pop()
    if notes is not None:
        before = next((piece for piece in reversed(out) if piece), "")[-1:]
        at_start_now = before in ("", "\n")
        if at_start_now or before in _RISKY_BEFORE or following in _RISKY_AFTER + "\n\r":
            # A deletion that ends a line can leave a bare heading such as "Sources".
            notes.structural_risk = True
    return 0


def _opens_line(text: str, start: int) -> bool:
    """True when only an entry's lead (indentation, a bullet, bold) precedes `start` on its line."""
    before = start
    while before and text[before - 1] in " \t":
        before -= 1
    previous = text[before - 1 : before]
    if previous and not previous.isspace() and previous not in _LEAD_CHARS:
        return False  # prose before it on the line: spare the search for the line's start
    line_start = text.rfind("\n", 0, start) + 1
    return _LINE_LEAD_RE.fullmatch(text, line_start, start) is not None


def apply_edits(text: str, edits: Iterable[Edit], notes: RewriteNotes | None = None) -> str:
    """Apply non-overlapping edits given in text order, tidying the space around deletions."""
    out: list[str] = []
    position = 0
    for start, end, replacement in edits:
        out.append(text[position:start])
        if notes is not None and replacement != text[start:end] and _opens_line(text, start):
            # A rewritten marker that opens a line may now read as an entry label.
            notes.structural_risk = True
        position = end
        if replacement is None:
            position += _delete_span(out, text, position, notes)
        else:
            out.append(replacement)
    out.append(text[position:])
    return "".join(out)


def url_token_span(text: str, start: int, end: int, floor: int = 0) -> tuple[int, int, str]:
    """A scanned URL's trimmed span and text, widened over `<…>` around it."""
    url = trim_url(text[start:end])
    end = start + len(url)
    if start > floor and text[start - 1] == "<" and text[end : end + 1] == ">":
        return start - 1, end + 1, url
    return start, end, url


# What introduced a link that is taken out and would be left hanging without it: "the library
# found at <url>." reads "the library found at." once the link goes, so it goes with it.
_DANGLING_LEAD = re.compile(
    r"(?:\s+(?:(?:is|are)\s+)?(?:found|available|located|hosted|published|downloadable)"
    r"\s+(?:at|from|on|via)|\s+(?:at|from|via))[ \t]*$",
    re.IGNORECASE,
)
_SENTENCE_GOES_ON = re.compile(r"[ \t]*(?:[.!?;,)\n]|$)")


def without_dangling_lead(text: str, start: int, end: int, floor: int) -> int:
    """Where the deletion of the link at `start:end` should begin: earlier, over the words
    that introduced it, when the sentence ends right after the link."""
    if not _SENTENCE_GOES_ON.match(text, end):
        return start
    line_start = text.rfind("\n", floor, start) + 1
    lead = _DANGLING_LEAD.search(text, max(floor, line_start), start)
    return lead.start() if lead is not None else start


def rewrite_body(
    text: str,
    marker_map: MarkerMap,
    known_numbers: Collection[int] | None,
    url_map: UrlMap | None = None,
    notes: RewriteNotes | None = None,
    superscripts: bool | None = None,
) -> str:
    """Rewrite markers (and optionally bare URLs) of prose in one left-to-right pass.

    `marker_map(n)` gives the new number for `n`, or None to drop it; a marker left with no
    number is deleted, and a marker whose numbers do not change keeps its exact text. With
    `url_map`, each bare URL is replaced by what it returns, or deleted when it returns None.
    One pass means a rewritten `[1]` can never be mistaken for an old `[1]`. `notes` records
    deletions that may have formed new structure. Superscripts count as markers when
    `superscripts` says so; by default, when the text uses them as citations.
    """
    urls: list[Token] = []
    if url_map is not None:
        urls = [(start, end, "url", None) for start, end in scan_urls(text)]
    if superscripts is None:
        superscripts = superscripts_cite(text, known_numbers)
    edits: list[Edit] = []
    previous_end = 0
    for token in merge_tokens(code_tokens(text), marker_tokens(text), urls):
        start, end, kind, _ = token
        if kind == "url" and url_map is not None:
            start, end, url = url_token_span(text, start, end, previous_end)
            replacement = url_map(url)
            if replacement is None:
                start = without_dangling_lead(text, start, end, previous_end)
            edits.append((start, end, replacement))
        elif kind != "code" and (kind != "superscript" or superscripts):
            read = token_numbers(token, known_numbers)
            if read is not None:
                numbers, style = read
                kept = _mapped_numbers(numbers, marker_map)
                if kept != numbers:
                    replacement = render_numbers(sorted(kept), style) if kept else None
                    edits.append((start, end, replacement))
        previous_end = end
    return apply_edits(text, edits, notes) if edits else text


def _mapped_numbers(numbers: tuple[int, ...], marker_map: MarkerMap) -> tuple[int, ...]:
    """The numbers `marker_map` keeps, mapped, in order and without repeats."""
    mapped = tuple(map(marker_map, numbers))
    if None in mapped:
        kept = tuple(number for number in mapped if number is not None)
    else:
        kept = cast("tuple[int, ...]", mapped)  # checking that nothing is None is enough
    return kept if len(kept) < 2 else tuple(dict.fromkeys(kept))


def collapse_links(text: str) -> tuple[str, list[str]]:
    """Markdown links, images and HTML anchors collapse to their text.

    Returns the new text and the link targets that were dropped. Code spans are left alone.
    """
    if "](" not in text and ("<" not in text or "<a" not in text.lower()):
        return text, []
    links: list[Token] = [(m.start(), m.end(), "link", m) for m in LINK_RE.finditer(text)]
    anchors: list[Token] = (
        [(m.start(), m.end(), "anchor", m) for m in HTML_ANCHOR_RE.finditer(text)]
        if "<a" in text.lower()
        else []
    )
    dropped: list[str] = []
    out: list[str] = []
    position = 0
    for start, end, kind, match in merge_tokens(code_tokens(text), links, anchors):
        if kind == "code" or match is None:
            continue
        out.append(text[position:start])
        if kind == "link":
            dropped.append(match.group("l_url").strip("<>"))
            out.append(match.group("l_text"))
        else:
            out.append(match.group("a_text"))
        position = end
    out.append(text[position:])
    return "".join(out), dropped


def render_report(parsed: ParsedReport, replacements: Mapping[int, str | None]) -> str:
    """Join the blocks back into text, replacing (or dropping, for None) blocks by index."""
    pieces: list[str] = []
    for index, block in enumerate(parsed.blocks):
        if index in replacements:
            replacement = replacements[index]
            if replacement is not None:
                pieces.append(replacement)
        else:
            pieces.append(block.line if isinstance(block, SourceEntry) else block)
    return "\n".join(pieces)


def tidy_after_removal(text: str, original: str) -> str:
    """Close the blank gaps left by removed lines, keeping the original's final newline."""
    tidied = re.sub(r"\n[ \t]*(?:\n[ \t]*){2,}", "\n\n", text).rstrip()
    return tidied + "\n" if original.endswith("\n") and tidied else tidied
