"""Finding a report's sources sections and splitting the report into prose and entries.

A sources section starts at a heading in any common spelling (`## Sources`, `### References`,
`**References:**`, `Sources:`, `Bibliography`, `Works cited`, `Citations`, `## 6. References`
...), possibly with its entries on the same line (`Sources: [1] A — url`). It runs to the last
entry before the next Markdown heading; blank lines and notes between entries belong to it,
prose after its last entry does not. Footnote definitions (`[^1]: …`) are entries wherever they
are, and a trailing run of `[n] … URL` lines set off by a blank line is a headless section.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from engine.citations.entries import (
    DEFINITION_RE,
    SourceEntry,
    has_locator,
    is_bullet,
    parse_entry,
    parse_plain_entry,
    parse_positional_entry,
    split_run_together,
)
from engine.citations.scanning import find_urls

# Longer spellings first: the tail group would otherwise take "List" of "Reference List".
_HEADING_WORDS = (
    r"reference\s+list|source\s+list|sources\s+(?:cited|used|consulted)"
    r"|references\s+and\s+sources|works\s+cited|bibliography|footnotes"
    r"|sources?|references?|citations?"
)
_EMPHASIS = r"(?:\*\*|__|\*|_)?"
_HEADING_RE = re.compile(
    rf"^\s{{0,3}}(?:#{{1,6}}\s*)?(?:\d{{1,2}}[.)]?\s+)?{_EMPHASIS}\s*(?:{_HEADING_WORDS})"
    rf"\s*{_EMPHASIS}\s*:?\s*{_EMPHASIS}\s*:?(?:[ \t]+(?P<tail>\S.*))?\s*$",
    re.IGNORECASE,
)
_ANY_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE_RE = re.compile(r"^\s*(?:```|~~~)")
# A bare list of sources after a heading: `Sources: https://a, https://b`.
_SEPARATORS_RE = re.compile(r"^[\s,;|]*(?:and\s*)?$", re.IGNORECASE)


@dataclass
class ParsedReport:
    """A report split into blocks, in order: prose, sources headings and source entries.

    `section_blocks` are the prose blocks inside a sources section (its heading, blank lines,
    notes between entries); `sections` pairs each section's heading block (None when headless)
    with its entry blocks.
    """

    blocks: list[str | SourceEntry] = field(default_factory=list)
    heading_indexes: list[int] = field(default_factory=list)
    section_blocks: set[int] = field(default_factory=set)
    sections: list[tuple[int | None, list[int]]] = field(default_factory=list)

    @property
    def heading_index(self) -> int | None:
        """The last sources heading (the section that ends the report), if any."""
        return self.heading_indexes[-1] if self.heading_indexes else None

    @property
    def entries(self) -> list[SourceEntry]:
        return [block for block in self.blocks if isinstance(block, SourceEntry)]

    @property
    def entry_numbers(self) -> set[int]:
        return {entry.number for entry in self.entries}

    def headings_left_empty(self, removed_blocks: Collection[int]) -> list[int]:
        """Headings whose every entry is among `removed_blocks`."""
        return [
            heading
            for heading, entries in self.sections
            if heading is not None and entries and all(i in removed_blocks for i in entries)
        ]

    def body_blocks(self) -> list[tuple[int, str]]:
        """Indexes and text of the blocks that are prose (not headings, not entries)."""
        headings = set(self.heading_indexes)
        return [
            (index, block)
            for index, block in enumerate(self.blocks)
            if isinstance(block, str) and index not in headings
        ]

    def prose_blocks(self) -> list[tuple[int, str]]:
        """Like `body_blocks`, without the notes and blank lines inside sources sections."""
        return [(i, block) for i, block in self.body_blocks() if i not in self.section_blocks]

    def body_text(self) -> str:
        return "\n".join(text for _, text in self.body_blocks())


# (first line, last line, entry or None): an entry spanning those lines, or one other line.
_Item = tuple[int, int, SourceEntry | None]


@dataclass
class _Section:
    """Lines `start..end` (exclusive) of one sources section, parsed into items."""

    heading: int | None
    start: int
    end: int
    heading_text: str | None = None
    tail_entries: list[SourceEntry] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)


def _tail_entries(tail: str) -> list[SourceEntry]:
    """Entries written on the heading's own line, or [] when the rest of it is prose."""
    entries = [e for e in map(parse_entry, split_run_together(tail)) if e is not None]
    if entries and any(entry.locator for entry in entries):
        return entries
    urls = find_urls(tail)
    leftover = tail
    for start, end, _ in reversed(urls):
        leftover = leftover[:start] + leftover[end:]
    if urls and _SEPARATORS_RE.match(leftover):
        found = [parse_positional_entry(url, n) for n, (_, _, url) in enumerate(urls, start=1)]
        return [entry for entry in found if entry is not None]
    return []


def ends_in_code_fence(text: str) -> bool:
    """True when `text` opens more code fences than it closes (an odd number of fence lines)."""
    if "```" not in text and "~~~" not in text:
        return False  # no fence line at all, without splitting the text into lines
    return sum(1 for line in text.split("\n") if _FENCE_RE.match(line)) % 2 == 1


def forms_structure(text: str) -> bool:
    """True when some line of `text` would read as a sources heading or a footnote definition.

    A rewrite that deletes a marker can create one (`References: [7] Source 3: …` loses its
    `[7]`); callers verify again when a rewritten block does.
    """
    definitions = "]:" in text  # a footnote definition needs one
    for line in text.split("\n"):
        if definitions and DEFINITION_RE.match(line):
            return True
        match = _HEADING_RE.match(line) if len(line) < 2000 else None
        if match is not None:
            tail = match.group("tail")
            if tail is None or _tail_entries(tail):
                return True
    return False


def _labelled_entries(line: str) -> list[SourceEntry]:
    """The labelled entries of one line (several when they were run together)."""
    pieces = split_run_together(line)
    entries = [parse_entry(piece) for piece in pieces]
    if len(pieces) > 1 and None in entries:
        # Some piece is not an entry: splitting would lose its text, so read the line whole.
        entries = [parse_entry(line)]
    return [entry for entry in entries if entry is not None]


def _parse_section_lines(section: _Section, lines: list[str]) -> None:
    """Fill `section.items` and pull `section.end` back to just after its last entry."""
    items: list[_Item] = []
    count = len(section.tail_entries)  # entries so far: the next bullet's position is count + 1
    for index in range(section.start, section.end):
        line = lines[index]
        plain = parse_plain_entry(line)
        if plain is not None:
            # The usual line of a list, `[n] Title: url`: one entry, read by one match.
            items.append((index, index, plain))
            count += 1
            continue
        if _FENCE_RE.match(line):
            break
        labelled = _labelled_entries(line) if line.strip() else []
        if labelled:
            items.extend((index, index, entry) for entry in labelled)
            count += len(labelled)
        elif line.strip() and has_locator(line):
            added = None if is_bullet(line) else _merge_continuation(items, lines, index, count + 1)
            if added is None:
                items.append((index, index, parse_positional_entry(line, count + 1)))
                added = 1
            count += added
        elif is_bullet(line):
            # A bulleted title whose URL may follow on the next line.
            items.append((index, index, parse_positional_entry(line, count + 1)))
            count += 1
        else:
            items.append((index, index, None))
    last_entry = len(items) - 1
    while last_entry >= 0 and items[last_entry][2] is None:
        last_entry -= 1
    section.items = items[: last_entry + 1]
    section.end = section.items[-1][1] + 1 if section.items else section.start


def _merge_continuation(
    items: list[_Item], lines: list[str], index: int, position: int
) -> int | None:
    """Join an unlabelled URL or key line to the entry or title line it completes.

    `1. Some title` then `   https://…` (blank lines between allowed) is one entry; so is a
    bare title line directly followed by a bare URL line. Returns how many entries the merge
    added (0 when it completed an entry, 1 when it made a title line one), None if no merge.
    """
    back = len(items) - 1
    while back >= 0 and items[back][2] is None and not lines[items[back][0]].strip():
        back -= 1
    if back < 0:
        return None
    first, _, entry = items[back]
    text = "\n".join(lines[first : index + 1])
    if entry is not None and entry.line != lines[first]:
        # The last of several entries run together on one line: only that piece continues,
        # the pieces before it are entries of their own.
        text = "\n".join([entry.line, *lines[first + 1 : index + 1]])
    if entry is not None:
        if entry.locator is not None:
            return None
        merged = parse_entry(text)
        if merged is None:
            merged = parse_positional_entry(text, entry.number)
    elif back == len(items) - 1 and not has_locator(lines[first]):
        # A bare title line, directly above its URL.
        merged = parse_positional_entry(text, position)
    else:
        return None
    if merged is None or merged.locator is None:
        return None
    del items[back:]
    items.append((first, index, merged))
    return 0 if entry is not None else 1


def _first_content_line(lines: list[str], start: int, end: int) -> int | None:
    return next((i for i in range(start, end) if lines[i].strip()), None)


def _find_sections(lines: list[str]) -> list[_Section]:
    """Every sources section of the report, in order."""
    candidates: list[tuple[int, re.Match[str], list[SourceEntry]]] = []
    for index, line in enumerate(lines):
        if line.startswith("["):
            continue  # an entry or a marker (`[1] …`), never a heading: spare the regex
        match = _HEADING_RE.match(line) if len(line) < 2000 else None
        if match is None:
            continue
        tail = match.group("tail")
        tail_entries = _tail_entries(tail) if tail is not None else []
        if tail is None or tail_entries:
            candidates.append((index, match, tail_entries))
    ends = _section_ends(lines, [index for index, _, _ in candidates])
    sections: list[_Section] = []
    for order, ((index, match, tail_entries), end) in enumerate(zip(candidates, ends, strict=True)):
        heading_text = lines[index]
        if tail_entries:
            heading_text = lines[index][: match.start("tail")].rstrip()
        section = _Section(index, index + 1, end, heading_text, tail_entries)
        _parse_section_lines(section, lines)
        if not _qualifies(section, lines, is_last=order == len(candidates) - 1):
            continue
        sections.append(section)
    return sections


def _section_ends(lines: list[str], headings: list[int]) -> list[int]:
    """Where the section under each candidate heading ends at the latest.

    That is the next candidate heading or Markdown heading, else the end of the text.
    """
    if not headings:
        return []
    markdown = (i for i, line in enumerate(lines) if "#" in line and _ANY_HEADING_RE.match(line))
    boundaries = sorted({*headings, *markdown})
    ends = []
    for index in headings:
        following = bisect.bisect_right(boundaries, index)
        ends.append(boundaries[following] if following < len(boundaries) else len(lines))
    return ends


def _qualifies(section: _Section, lines: list[str], *, is_last: bool) -> bool:
    """A heading heads a section when entries follow it.

    The entries must come first (a stray "Sources" line in prose is followed by prose), except
    for the report's last candidate heading, which may have a note before its entries.
    """
    if section.tail_entries:
        return True
    entries = [item[2] for item in section.items if item[2] is not None]
    if not entries:
        return False
    first = _first_content_line(lines, section.start, section.end)
    starts_with_entry = first is not None and section.items[0][0] == first
    if not is_last:
        return starts_with_entry and section.items[0][2] is not None
    return any(entry.number_span is not None for entry in entries) or starts_with_entry


def _trailing_entry_block(lines: list[str]) -> _Section | None:
    """A headless sources list: trailing `[n] ... URL-or-key` lines ending the text.

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
    section = _Section(None, start, len(lines))
    _parse_section_lines(section, lines)
    return section if section.items else None


class _Builder:
    """Collects blocks for `parse_report`, joining consecutive prose lines into one block."""

    def __init__(self) -> None:
        self.parsed = ParsedReport()
        self._prose: list[str] = []

    def flush(self) -> None:
        if self._prose:
            self.parsed.blocks.append("\n".join(self._prose))
            self._prose.clear()

    def prose(self, line: str) -> None:
        self._prose.append(line)

    def block(self, block: str | SourceEntry, in_section: bool = False) -> int:
        self.flush()
        self.parsed.blocks.append(block)
        index = len(self.parsed.blocks) - 1
        if in_section and isinstance(block, str):
            self.parsed.section_blocks.add(index)
        return index

    def section(self, section: _Section, lines: list[str]) -> None:
        self.flush()  # a section holds no prose to join, so its entries go straight in
        blocks = self.parsed.blocks
        heading: int | None = None
        if section.heading is not None:
            heading = self.block(section.heading_text or lines[section.heading], in_section=True)
            self.parsed.heading_indexes.append(heading)
        entries: list[int] = []
        for entry in section.tail_entries:
            blocks.append(entry)
            entries.append(len(blocks) - 1)
        for first, _last, item in section.items:
            if item is None:
                self.block(lines[first], in_section=True)
            else:
                blocks.append(item)
                entries.append(len(blocks) - 1)
        self.parsed.sections.append((heading, entries))


def parse_report(text: str) -> ParsedReport:
    """Split a report into prose, sources headings and source entries."""
    lines = text.split("\n")
    sections = _find_sections(lines)
    if not sections:
        headless = _trailing_entry_block(lines)
        sections = [headless] if headless is not None else []
    starts = {section.heading if section.heading is not None else section.start: section
              for section in sections}  # fmt: skip
    builder = _Builder()
    in_code_fence = False
    index = 0
    while index < len(lines):
        line = lines[index]
        section = starts.get(index)
        if section is not None and not in_code_fence:
            builder.section(section, lines)
            index = max(section.end, index + 1)
            continue
        if _FENCE_RE.match(line):
            in_code_fence = not in_code_fence
        entry = parse_entry(line) if not in_code_fence and DEFINITION_RE.match(line) else None
        if entry is not None:
            builder.block(entry)
            builder.parsed.sections.append((None, [len(builder.parsed.blocks) - 1]))
        else:
            builder.prose(line)
        index += 1
    builder.flush()
    return builder.parsed


def parse_with_sources(
    body: str,
    heading: str,
    lines: list[str],
    entries: list[SourceEntry | None],
    *,
    final_newline: bool,
) -> ParsedReport | None:
    """`parse_report` of `body`, a blank line, `heading` and `lines`, reading only what it must.

    For a report that ends with a sources section its writer just built: each line's entry is
    given (None where unknown, and then read). The result equals what `parse_report` returns
    for the joined text; None when the body could change that (a sources heading, a footnote
    definition or an unclosed code fence in it) or the section is not plainly one entry a line.
    """
    match = _HEADING_RE.match(heading)
    if match is None or match.group("tail") is not None or not lines or forms_structure(body):
        return None
    if ends_in_code_fence(body):
        return None
    known: list[SourceEntry] = []
    for line, entry in zip(lines, entries, strict=True):
        found = [entry] if entry is not None else _labelled_entries(line)
        if len(found) != 1 or found[0].number_span is None or not line.startswith("["):
            return None
        known.append(found[0])
    parsed = ParsedReport()
    if body:
        parsed.blocks.append(body + "\n")  # the body and the blank line after it
    heading_index = len(parsed.blocks)
    parsed.blocks.append(heading)
    parsed.heading_indexes.append(heading_index)
    parsed.section_blocks.add(heading_index)
    parsed.blocks.extend(known)
    parsed.sections.append((heading_index, list(range(heading_index + 1, len(parsed.blocks)))))
    if final_newline:
        parsed.blocks.append("")
    return parsed


def parse_sources_section(text: str) -> list[SourceEntry]:
    """The entries of the report's sources sections and its footnote definitions, in order."""
    return parse_report(text).entries
