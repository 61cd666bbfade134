"""Rewriting a report's citations into the engine's one canonical form.

Every citation the prose makes, in whatever style, becomes a bracket marker `[n]` whose
number is the writer's for a listed source, or a fresh one for a source cited only by name
or URL. Citations that resolve to nothing retrieved are deleted and recorded. The report then
ends with one `## Sources` section of `[n] Title: locator` lines, in order of first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.citations.entries import (
    DOCUMENT_KEY_RE,
    PLAIN_URL_PATTERN,
    SourceEntry,
    clean_title,
    is_plain_title,
    may_hold_document_key,
    parse_entry,
    plain_line_entry,
    split_run_together,
)
from engine.citations.inline import NamedCitation, Ref, citation_tokens, named_citation
from engine.citations.markers import BRACKET_STYLES, render_numbers, token_numbers
from engine.citations.resolve import SourceTable
from engine.citations.results import NO_SUCH_ENTRY, UNNUMBERED, RemovedCitation
from engine.citations.rewrite import (
    Edit,
    RewriteNotes,
    apply_edits,
    url_token_span,
    without_dangling_lead,
)
from engine.citations.sanitize import unsafe_url_reason
from engine.citations.scanning import Token, find_urls

SOURCES_HEADING = "## Sources"
# URLs that a sources line holds whole and as written: no character that ends a URL, starts a
# link or is trimmed as sentence punctuation, so the line's entry is known without reading it.
_PLAIN_URL_RE = re.compile(PLAIN_URL_PATTERN)
# Entry labels hold at most four digits (`[9999]`).
_MAX_LABEL = 9999


@dataclass
class BodyCiter:
    """Rewrites prose blocks one after another, remembering the order sources are first cited."""

    table: SourceTable
    superscripts: bool
    # Numbers as written that a sources list defines (before any scope shift): they decide
    # whether a bracketed year such as `[2024]` is a marker.
    known_numbers: set[int] = field(default_factory=set)
    notes: RewriteNotes = field(default_factory=RewriteNotes)
    used: list[int] = field(default_factory=list)
    removed: list[RemovedCitation] = field(default_factory=list)
    _used_set: set[int] = field(default_factory=set)
    _known: set[int] | None = None
    _missing_reported: set[int] = field(default_factory=set)

    def rewrite(self, text: str, offset: int = 0) -> str:
        """`text` with every citation canonical; `offset` shifts its numbers (see `scopes`)."""
        edits: list[Edit] = []
        previous_end = 0
        for token in citation_tokens(text):
            start, end, kind, _ = token
            edit: Edit | None = None
            if kind == "url":
                start, end, url = url_token_span(text, start, end, previous_end)
                edit = self._url_edit(start, end, url)
                if edit[2] is None:
                    edit = (without_dangling_lead(text, start, end, previous_end), end, None)
            elif kind in ("named", "link"):
                citation = named_citation(token)
                edit = self._named_edit(citation) if citation is not None else None
            elif kind != "code" and (kind != "superscript" or self.superscripts):
                edit = self._marker_edit(token, offset)
            if edit is not None:
                edits.append(_spaced(text, edit))
            previous_end = end
        return apply_edits(text, edits, self.notes) if edits else text

    def _use(self, number: int) -> None:
        if number not in self._used_set:
            self._used_set.add(number)
            self.used.append(number)

    def _marker_edit(self, token: Token, offset: int) -> Edit | None:
        if self._known is None:
            self._known = self.known_numbers | self.table.listed
        read = token_numbers(token, self._known)
        if read is None:
            return None
        numbers, style = read
        kept: list[int] = []
        number_map = self.table.number_map
        for written in numbers:
            mapped = number_map.get(written + offset)
            if mapped is None:
                self._report_missing(written + offset)
            elif mapped not in kept:
                kept.append(mapped)
        unchanged = not offset and tuple(kept) == numbers and style in BRACKET_STYLES
        shown = kept if unchanged else sorted(kept)
        # First use follows the numbers as the verified report will show them.
        for number in shown:
            self._use(number)
        if unchanged:
            return None
        return token[0], token[1], render_numbers(shown) if shown else None

    def _report_missing(self, number: int) -> None:
        """A number no entry lists is recorded once; numbers of removed entries already are."""
        if number not in self.table.listed and number not in self._missing_reported:
            self._missing_reported.add(number)
            self.removed.append(RemovedCitation(number=number, source=None, reason=NO_SUCH_ENTRY))

    def _named_edit(self, citation: NamedCitation) -> Edit | None:
        resolved = [(ref, *self.table.resolve_ref(ref)) for ref in citation.refs]
        if citation.soft and all(locator is None for _, locator, _ in resolved):
            return None
        numbers: list[int] = []
        for ref, locator, reason in resolved:
            if locator is None:
                if ref.kind == "url":
                    reason = unsafe_url_reason(ref.text) or reason
                self.removed.append(
                    RemovedCitation(number=UNNUMBERED, source=ref.text, reason=reason)
                )
                continue
            number = self.table.number_for(locator)
            if number not in numbers:
                numbers.append(number)
        for number in numbers:
            self._use(number)
        marker = render_numbers(numbers) if numbers else ""
        replacement = " ".join(part for part in (citation.keep_text, marker) if part)
        return citation.start, citation.end, replacement or None

    def _url_edit(self, start: int, end: int, url: str) -> Edit:
        locator, reason = self.table.resolve_ref(Ref("url", url))
        if locator is None:
            reason = unsafe_url_reason(url) or reason
            self.removed.append(RemovedCitation(number=UNNUMBERED, source=url, reason=reason))
            return start, end, None
        number = self.table.number_for(locator)
        self._use(number)
        return start, end, render_numbers([number])


def _spaced(text: str, edit: Edit) -> Edit:
    """A marker that replaces a glued-on citation (`writers¹`, `I/O【2†L1】`) gets a space."""
    start, end, replacement = edit
    if replacement and replacement.startswith("[") and start and text[start - 1] not in " \t\n([":
        return start, end, " " + replacement
    return edit


def _safe_title(title: str | None) -> str | None:
    """A title that cannot be mistaken for a URL, a document key or a link when re-read."""
    if not title:
        return None
    for start, end, _ in reversed(find_urls(title)):
        title = title[:start] + title[end:]
    if may_hold_document_key(title):
        title = DOCUMENT_KEY_RE.sub("", title)
    return clean_title(title.replace("](", "] ("))


def canonical_entry(number: int, title: str | None, locator: str) -> tuple[str, SourceEntry | None]:
    """`[n] Title: locator`, with a title that reads back unchanged (so verifying is stable),
    and the entry that line parses to when that is known without parsing.

    A title that would not read back (it holds something that reads as a second entry, say)
    is dropped.

    The entry is None when only reading the line again would tell (a document key, an
    unusual URL); otherwise it equals `parse_entry(line)`, and the line holds no other entry.
    """
    if title and is_plain_title(title) and not may_hold_document_key(title):
        return _titled_plain_line(number, title, locator)  # as `_safe_title` would leave it
    title = _safe_title(title)
    if title and is_plain_title(title):
        return _titled_plain_line(number, title, locator)
    if title:
        line = f"[{number}] {title}: {locator}"
        entry = parse_entry(line)
        if entry is not None and entry.title == title and split_run_together(line) == [line]:
            return line, entry
    line = f"[{number}] {locator}"
    return line, _plain_entry(number, None, locator, line)


def _titled_plain_line(number: int, title: str, locator: str) -> tuple[str, SourceEntry | None]:
    # Nothing in the title can read as a label, a link or an address: it reads back unchanged.
    line = f"[{number}] {title}: {locator}"
    return line, _plain_entry(number, title, locator, line)


def _plain_entry(number: int, title: str | None, locator: str, line: str) -> SourceEntry | None:
    """The entry of `[n] Title: url` or `[n] url` when both are plain (see `_PLAIN_URL_RE`)."""
    if not 0 <= number <= _MAX_LABEL or not _PLAIN_URL_RE.fullmatch(locator):
        return None
    return plain_line_entry(number, len(str(number)), title, locator, line)


def canonical_section_entries(
    order: list[int], table: SourceTable
) -> tuple[list[str], list[SourceEntry | None]]:
    """The lines under `SOURCES_HEADING` for `order`, and each line's entry where known."""
    lines: list[str] = []
    entries: list[SourceEntry | None] = []
    for number in order:
        locator = table.locator_of[number]
        line, entry = canonical_entry(number, table.titles.get(number), locator)
        if line == f"[{number}] {locator}":
            line, entry = canonical_entry(number, table.registry.title_for(locator), locator)
        lines.append(line)
        entries.append(entry)
    return lines, entries
