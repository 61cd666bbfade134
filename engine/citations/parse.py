"""Reading and rewriting the citation structure of a Markdown report.

A report is a body with inline markers (`[1]`, `[1, 3]`, `[2-4]`, `[^5]`, `［6］`, `【7】`)
and a sources section (`## Sources`, `**References**`, a bare `Reference List` line ...) whose
entries give each number a URL or a document key. Footnote definitions (`[^5]: ...`) count as
entries wherever they are. Everything here is pure text processing shared by the verifier, the
sanitizer and evidence extraction, so each pattern exists exactly once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.citations.keys import DOCUMENT_KEY_PATTERN

# ----------------------------------------------------------------------------- patterns

_NUMBER = r"\d{1,4}"
_ITEM = rf"\^?{_NUMBER}(?:\s*[-–]\s*{_NUMBER})?"
_ITEM_LIST = rf"{_ITEM}(?:\s*[,;]\s*{_ITEM})*"

# `[n]` not followed by `(` (that is a Markdown link whose text is a number). Public so that
# sentence splitting can treat markers after a full stop as part of the sentence.
MARKER_PATTERN = (
    rf"\[(?P<m_ascii>{_ITEM_LIST})\](?!\()"
    rf"|［(?P<m_wide>{_ITEM_LIST})］"
    rf"|【(?P<m_lenticular>{_ITEM_LIST})】"
)
_MARKER_RE = re.compile(MARKER_PATTERN)
_RANGE_RE = re.compile(rf"\^?({_NUMBER})(?:\s*[-–]\s*({_NUMBER}))?")

# URLs are found from their colon outwards (see `_scan_urls`): one regex alternation that
# could start at any letter is an order of magnitude slower on long reports.
_URL_CHARS = r"[^\s<>\"'`\[\]{}|\\^]"
# After `scheme://`: an IPv6 host keeps its brackets.
_HIER_REST_RE = re.compile(rf"(?:\[[0-9A-Za-z:.%]+\]{_URL_CHARS}*|{_URL_CHARS}+)")
_OPAQUE_REST_RE = re.compile(rf"{_URL_CHARS}+")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Schemes that are URLs without `//`: the dangerous ones and the common harmless ones.
_OPAQUE_SCHEMES = frozenset({"javascript", "data", "vbscript", "mailto", "file", "about", "blob"})
_MAX_SCHEME_LENGTH = 40

_LINK_PATTERN = (
    r"(?P<l_bang>!?)\[(?P<l_text>[^\]\n]*)\]"
    r"\((?P<l_url><[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+\"[^\"\n]*\")?\)"
)
_LINK_RE = re.compile(_LINK_PATTERN)
_HTML_ANCHOR_RE = re.compile(r"<a\s[^>]*>(?P<a_text>.*?)</a\s*>", re.IGNORECASE | re.DOTALL)

# Code is quoted material: markers, links and URLs inside it are left alone.
_CODE_RE = re.compile(r"```[\s\S]*?```|~~~[\s\S]*?~~~|`[^`\n]+`")

# Tool-call markup a model leaked into its prose instead of calling the tool.
_TOOL_MARKUP_PATTERN = (
    r"</?(?:tool_calls?|tool_use|function(?:_calls|s)?|invoke|parameter)(?=[\s>=:|/]|$)"
    r"|<\|(?:python_tag|tool_calls?|tool_call_begin|tool_calls_begin)\|?>?"
    r"|\[TOOL_CALLS\]"
)
_TOOL_MARKUP_RE = re.compile(_TOOL_MARKUP_PATTERN)

_HEADING_RE = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*|__)?\s*(?:sources|references|reference\s+list)\s*:?\s*"
    r"(?:\*\*|__)?\s*:?\s*$",
    re.IGNORECASE,
)
_ANY_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s")

# One entry of a sources list. The label is `[n]`, `[^n]:`, `[n]:`, `［n］`, `【n】`, `n.` or
# `n)`, optionally after a list bullet and optionally in bold.
_ENTRY_RE = re.compile(
    r"^(?P<lead>\s*(?:[-*+•]\s+)?(?:\*\*)?)"
    r"(?P<label>\[\^?(?P<n_bracket>\d{1,4})\](?:\*\*)?:?"
    r"|［(?P<n_wide>\d{1,4})］|【(?P<n_lenticular>\d{1,4})】"
    r"|(?P<n_list>\d{1,4})[.)](?:\*\*)?(?=\s))"
    r"(?P<rest>.*)$"
)
_ENTRY_NUMBER_GROUPS = ("n_bracket", "n_wide", "n_lenticular", "n_list")
_DEFINITION_RE = re.compile(r"^\s*\[\^?\d{1,4}\]:\s")
_DOCUMENT_KEY_RE = re.compile(DOCUMENT_KEY_PATTERN, re.IGNORECASE)

_TITLE_TRIM = " \t\r.:;,-–—|*_\"'`<>"
_URL_TRAILING_PUNCT = ".,;:!?*_'\""

# Bracketed four-digit numbers in this range read as years (`[2024]`), not citations, unless
# the sources list really has an entry with that number.
_YEAR_RANGE = range(1000, 3000)
# A range marker wider than this is not a citation (`[1-5000]` is a page span or a dataset).
_MAX_RANGE_SPAN = 100


# ------------------------------------------------------------------------------- models


class InlineMarker(NamedTuple):
    """One inline citation marker: its span in the text and the numbers it cites, in order."""

    start: int
    end: int
    text: str
    numbers: tuple[int, ...]
    footnote: bool = False


class SourceEntry(NamedTuple):
    """One entry of a sources list (or a footnote definition).

    `url` and `key` are as written; `locator` is whichever the entry has (URL first).
    """

    number: int
    title: str | None
    url: str | None
    key: str | None
    line: str
    number_span: tuple[int, int]
    url_span: tuple[int, int] | None = None
    key_span: tuple[int, int] | None = None

    @property
    def locator(self) -> str | None:
        return self.url or self.key

    def render(
        self, number: int | None = None, url: str | None = None, key: str | None = None
    ) -> str:
        """The entry line with its number, URL or key replaced, everything else as written."""
        line = self.line
        edits: list[tuple[tuple[int, int], str]] = []
        if number is not None:
            edits.append((self.number_span, str(number)))
        if url is not None and self.url_span is not None:
            edits.append((self.url_span, url))
        if key is not None and self.key_span is not None:
            edits.append((self.key_span, key))
        for (start, end), replacement in sorted(edits, reverse=True):
            line = line[:start] + replacement + line[end:]
        return line


@dataclass
class ParsedReport:
    """A report split into body text, the sources heading and source entries, in order."""

    blocks: list[str | SourceEntry] = field(default_factory=list)
    heading_index: int | None = None

    @property
    def entries(self) -> list[SourceEntry]:
        return [block for block in self.blocks if isinstance(block, SourceEntry)]

    @property
    def entry_numbers(self) -> set[int]:
        return {entry.number for entry in self.entries}

    def heading_left_empty(self, removed_blocks: Collection[int]) -> bool:
        """True when removing these blocks leaves the sources heading with no entry under it."""
        if self.heading_index is None:
            return False
        under = [
            index
            for index, block in enumerate(self.blocks)
            if index > self.heading_index and isinstance(block, SourceEntry)
        ]
        return bool(under) and all(index in removed_blocks for index in under)

    def body_blocks(self) -> list[tuple[int, str]]:
        """Indexes and text of the blocks that are prose (not the heading, not entries)."""
        return [
            (index, block)
            for index, block in enumerate(self.blocks)
            if isinstance(block, str) and index != self.heading_index
        ]

    def body_text(self) -> str:
        return "\n".join(text for _, text in self.body_blocks())


# ------------------------------------------------------------------------------ parsing


def _scan_urls(text: str) -> list[tuple[int, int]]:
    """Spans of URLs as written (trailing punctuation not yet trimmed).

    Each colon is a candidate: the scheme is the run of scheme characters before it, starting
    with a letter. `scheme://...` is always a URL; `scheme:...` only for the opaque schemes.
    """
    spans: list[tuple[int, int]] = []
    colon = text.find(":")
    while colon != -1:
        start = colon
        while start > 0 and colon - start < _MAX_SCHEME_LENGTH and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        while start < colon and text[start] not in _ASCII_LETTERS:
            start += 1
        rest = None
        if start < colon:
            if text.startswith("//", colon + 1):
                rest = _HIER_REST_RE.match(text, colon + 3)
            elif text[start:colon].lower() in _OPAQUE_SCHEMES:
                rest = _OPAQUE_REST_RE.match(text, colon + 1)
        if rest is not None:
            spans.append((start, rest.end()))
            colon = text.find(":", rest.end())
        else:
            colon = text.find(":", colon + 1)
    return spans


def _first_url(text: str) -> tuple[int, int, str] | None:
    if ":" not in text:
        return None
    for start, end in _scan_urls(text):
        url = trim_url(text[start:end])
        if url:
            return start, start + len(url), url
    return None


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """Every URL written in `text` as (start, end, url), trailing punctuation excluded."""
    found = []
    for start, end in _scan_urls(text):
        url = trim_url(text[start:end])
        if url:
            found.append((start, start + len(url), url))
    return found


def _code_spans(text: str) -> list[tuple[int, int]]:
    if "`" not in text and "~~~" not in text:
        return []
    return [match.span() for match in _CODE_RE.finditer(text)]


_Token = tuple[int, int, str, "re.Match[str] | None"]


def _merge_tokens(*groups: list[_Token]) -> list[_Token]:
    """Tokens in text order, dropping any that overlap an earlier one.

    Groups are given in priority order: at the same start, the earlier group wins (code first,
    so nothing inside a code span is ever a marker, link or URL).
    """
    ranked = sorted(
        (token[0], rank, token) for rank, group in enumerate(groups) for token in group
    )
    merged: list[_Token] = []
    end = 0
    for start, _, token in ranked:
        if start >= end:
            merged.append(token)
            end = token[1]
    return merged


def _body_tokens(text: str, with_urls: bool) -> list[_Token]:
    code: list[_Token] = [(start, end, "code", None) for start, end in _code_spans(text)]
    markers: list[_Token] = [
        (match.start(), match.end(), "marker", match) for match in _MARKER_RE.finditer(text)
    ]
    urls: list[_Token] = (
        [(start, end, "url", None) for start, end in _scan_urls(text)] if with_urls else []
    )
    if not code and not urls:
        return markers
    return _merge_tokens(code, markers, urls)


def trim_url(candidate: str) -> str:
    """Drop sentence punctuation and unbalanced closing parentheses after a URL.

    A trailing `...` is kept: it marks a truncated URL that the sanitizer must see.
    """
    url = candidate
    while url:
        if url.endswith("...") or url.endswith("…"):
            break
        unbalanced_paren = url[-1] == ")" and url.count(")") > url.count("(")
        if url[-1] not in _URL_TRAILING_PUNCT and not unbalanced_paren:
            break
        url = url[:-1]
    return url


def _marker_numbers(body: str, known_numbers: Collection[int] | None) -> tuple[int, ...] | None:
    numbers: list[int] = []
    items: list[re.Match[str]] = []
    parts = body.split(",")
    if all(part.strip().isdigit() for part in parts):
        # The common cases, `[12]` and `[3, 7]`, without the regex.
        numbers.extend(int(part) for part in parts)
    else:
        items = list(_RANGE_RE.finditer(body))
    for item in items:
        low = int(item.group(1))
        high = int(item.group(2)) if item.group(2) else low
        if high < low or high - low > _MAX_RANGE_SPAN:
            return None
        numbers.extend(range(low, high + 1))
    looks_like_year = len(numbers) == 1 and numbers[0] in _YEAR_RANGE
    if looks_like_year and (known_numbers is None or numbers[0] not in known_numbers):
        return None
    return tuple(dict.fromkeys(numbers))


def _marker_from_match(
    match: re.Match[str], known_numbers: Collection[int] | None, offset: int = 0
) -> InlineMarker | None:
    body = match.group("m_ascii") or match.group("m_wide") or match.group("m_lenticular")
    if body is None:
        return None
    numbers = _marker_numbers(body, known_numbers)
    if numbers is None:
        return None
    return InlineMarker(
        start=match.start() - offset,
        end=match.end() - offset,
        text=match.group(0),
        numbers=numbers,
        footnote=body.startswith("^"),
    )


def find_inline_markers(
    text: str, known_numbers: Collection[int] | None = None
) -> list[InlineMarker]:
    """Inline citation markers in `text`, skipping code spans and Markdown link texts.

    `known_numbers` are the numbers the sources list defines; a bracketed year such as
    `[2024]` counts as a marker only when it is one of them.
    """
    markers: list[InlineMarker] = []
    for _, _, kind, match in _body_tokens(text, with_urls=False):
        if kind == "marker" and match is not None:
            marker = _marker_from_match(match, known_numbers)
            if marker is not None:
                markers.append(marker)
    return markers


def parse_entry(line: str) -> SourceEntry | None:
    """One sources-list line as an entry, or None when the line has no entry label."""
    match = _ENTRY_RE.match(line)
    if match is None or not match.group("rest").strip():
        # A label with nothing after it (`[2024]` alone on a line) cites nothing.
        return None
    number_group = "n_bracket"
    for name in _ENTRY_NUMBER_GROUPS:
        if match.group(name) is not None:
            number_group = name
            break
    number_span = match.span(number_group)
    rest_start = match.start("rest")
    rest = match.group("rest")

    url: str | None = None
    url_span: tuple[int, int] | None = None
    title_text = rest
    link = _LINK_RE.search(rest) if "](" in rest else None
    if link is not None:
        raw = link.group("l_url")
        inner_start = link.start("l_url") + (1 if raw.startswith("<") else 0)
        url = raw.strip("<>").strip() or None
        if url is not None:
            url_span = (rest_start + inner_start, rest_start + inner_start + len(url))
        title_text = rest[: link.start()] + link.group("l_text") + rest[link.end() :]
    else:
        first = _first_url(rest)
        if first is not None:
            start, end, url = first
            url_span = (rest_start + start, rest_start + end)
            title_text = rest[:start] + rest[end:]

    key: str | None = None
    key_span: tuple[int, int] | None = None
    if url is None:
        keys = list(_DOCUMENT_KEY_RE.finditer(rest))
        if keys:
            found = keys[-1]
            key = found.group(0).strip()
            key_start = rest_start + found.start() + found.group(0).index(key)
            key_span = (key_start, key_start + len(key))
            title_text = rest[: found.start()] + rest[found.end() :]

    title = title_text.replace("<>", "").replace("()", "").strip(_TITLE_TRIM)
    title = " ".join(title.split()) or None
    return SourceEntry(
        number=int(match.group(number_group)),
        title=title,
        url=url,
        key=key,
        line=line,
        number_span=number_span,
        url_span=url_span,
        key_span=key_span,
    )


def _find_heading(lines: list[str]) -> int | None:
    """The last sources heading that is followed by at least one entry before the next heading.

    A stray "Sources" line in the prose is not followed by entries, so it never starts the
    section; the last qualifying heading wins because the sources list ends the report.
    """
    chosen: int | None = None
    for index, line in enumerate(lines):
        if not _HEADING_RE.match(line):
            continue
        for following in lines[index + 1 :]:
            if _ANY_HEADING_RE.match(following) or _HEADING_RE.match(following):
                break
            if parse_entry(following) is not None:
                chosen = index
                break
    return chosen


def _trailing_entry_block(lines: list[str]) -> int | None:
    """Start of a headless sources list: trailing `[n] ... URL-or-key` lines ending the text.

    The list must be set off from prose by a blank line, so a paragraph that merely starts
    with a marker is never taken for it.
    """
    start: int | None = None
    index = len(lines) - 1
    while index >= 0:
        line = lines[index]
        if line.strip():
            entry = parse_entry(line)
            if entry is None or not line.lstrip().startswith("[") or entry.locator is None:
                break
            start = index
        index -= 1
    if start is None or start == 0 or lines[start - 1].strip():
        return None
    if not any(line.strip() for line in lines[:start]):
        return None
    return start


def parse_report(text: str) -> ParsedReport:
    """Split a report into prose, the sources heading and the source entries."""
    lines = text.split("\n")
    heading = _find_heading(lines)
    section_start = heading + 1 if heading is not None else _trailing_entry_block(lines)
    section_end = len(lines)
    if heading is not None:
        for index in range(heading + 1, len(lines)):
            if _ANY_HEADING_RE.match(lines[index]):
                section_end = index
                break

    parsed = ParsedReport()
    prose: list[str] = []

    def flush() -> None:
        if prose:
            parsed.blocks.append("\n".join(prose))
            prose.clear()

    in_code_fence = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_code_fence = not in_code_fence
        in_section = section_start is not None and section_start <= index < section_end
        entry = None
        if not in_code_fence and (in_section or _DEFINITION_RE.match(line)):
            entry = parse_entry(line)
        if index == heading:
            flush()
            parsed.heading_index = len(parsed.blocks)
            parsed.blocks.append(line)
        elif entry is not None:
            flush()
            parsed.blocks.append(entry)
        else:
            prose.append(line)
    flush()
    return parsed


def parse_sources_section(text: str) -> list[SourceEntry]:
    """The entries of the report's sources section and its footnote definitions, in order."""
    return parse_report(text).entries


def find_tool_markup(text: str) -> int | None:
    """Offset of the first leaked tool-call tag (`<tool_call`, `<function`, `<invoke` ...).

    Tags quoted in code spans are documentation, not leaks, and are ignored.
    """
    if "<" not in text and "[TOOL_CALLS]" not in text:
        return None
    code: list[tuple[int, int]] | None = None
    for match in _TOOL_MARKUP_RE.finditer(text):
        if code is None:
            code = _code_spans(text)
        if not any(start <= match.start() < end for start, end in code):
            return match.start()
    return None


# ---------------------------------------------------------------------------- rewriting

_PUNCTUATION_AFTER = ".,;:!?)]}"


@dataclass
class RewriteNotes:
    """Whether a rewrite deleted text where the joined remainder could form new structure.

    Deleting `[^1]` from `[2024] [^1]: note` leaves `[2024]: note`, a new entry. Such joins
    need a bracket, colon or digit next to the deletion, or a deletion at a line's start;
    callers re-check the result only when one happened, which keeps the common case cheap.
    """

    structural_risk: bool = False


# What may precede an entry label on its line: indentation, a bullet, bold.
_LINE_LEAD_RE = re.compile(r"\s*(?:[-*+•]\s+)?(?:\*\*)?")
_RISKY_BEFORE = frozenset("[]^,;-–0123456789")
_RISKY_AFTER = "[]:^0123456789("


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


def render_marker(marker: InlineMarker, numbers: Iterable[int]) -> str:
    """A marker citing `numbers`, in the marker's own style (footnote or bracket)."""
    return _render_numbers(list(numbers), marker.footnote)


def _render_numbers(numbers: list[int], footnote: bool) -> str:
    if footnote:
        return "".join(f"[^{number}]" for number in numbers)
    return "[" + ", ".join(str(number) for number in numbers) + "]"


MarkerMap = Callable[[int], int | None]
UrlMap = Callable[[str], str | None]


def rewrite_body(
    text: str,
    marker_map: MarkerMap,
    known_numbers: Collection[int] | None,
    url_map: UrlMap | None = None,
    notes: RewriteNotes | None = None,
) -> str:
    """Rewrite markers (and optionally bare URLs) of prose in one left-to-right pass.

    `marker_map(n)` gives the new number for `n`, or None to drop it; a marker left with no
    number is deleted, and a marker whose numbers do not change keeps its exact text. With
    `url_map`, each bare URL is replaced by what it returns, or deleted when it returns None.
    One pass means a rewritten `[1]` can never be mistaken for an old `[1]`. `notes` records
    deletions that may have formed new structure.
    """
    out: list[str] = []
    position = 0
    for start, end, kind, match in _body_tokens(text, with_urls=url_map is not None):
        replacement: str | None
        if kind == "marker" and match is not None:
            replacement = match.group(0)
            body = match.group("m_ascii") or match.group("m_wide") or match.group("m_lenticular")
            numbers = _marker_numbers(body, known_numbers) if body else None
            if numbers is not None:
                mapped = [marker_map(number) for number in numbers]
                kept = list(dict.fromkeys(n for n in mapped if n is not None))
                if kept != list(numbers):
                    replacement = _render_numbers(kept, body.startswith("^")) if kept else None
        elif kind == "url" and url_map is not None:
            url = trim_url(text[start:end])
            end = start + len(url)
            if start > position and text[start - 1] == "<" and text[end : end + 1] == ">":
                start, end = start - 1, end + 1
            replacement = url_map(url)
        else:
            continue
        out.append(text[position:start])
        if notes is not None and replacement != text[start:end]:
            line_start = text.rfind("\n", 0, start) + 1
            if _LINE_LEAD_RE.fullmatch(text, line_start, start):
                # A rewritten marker that opens a line may now read as an entry label.
                notes.structural_risk = True
        position = end
        if replacement is None:
            position += _delete_span(out, text, position, notes)
        else:
            out.append(replacement)
    out.append(text[position:])
    return "".join(out)


def collapse_links(text: str) -> tuple[str, list[str]]:
    """Markdown links, images and HTML anchors collapse to their text.

    Returns the new text and the link targets that were dropped. Code spans are left alone.
    """
    if "](" not in text and "<a" not in text.lower():
        return text, []
    code: list[_Token] = [(start, end, "code", None) for start, end in _code_spans(text)]
    links: list[_Token] = [(m.start(), m.end(), "link", m) for m in _LINK_RE.finditer(text)]
    anchors: list[_Token] = (
        [(m.start(), m.end(), "anchor", m) for m in _HTML_ANCHOR_RE.finditer(text)]
        if "<a" in text.lower()
        else []
    )
    dropped: list[str] = []
    out: list[str] = []
    position = 0
    for start, end, kind, match in _merge_tokens(code, links, anchors):
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
