"""One entry of a sources list: its number, title and URL or document key.

Entries are written many ways: `[1] Title — https://…`, `1. Title. <https://…>`, `1) …`,
`[^1]: …`, `**[1]** …`, `(1) …`, `Source 1: …`, `¹ …`, bullets whose number is their position
(`- [Title](https://…)`), an entry split over two lines (title, then URL), or several entries
run together on one line (`[1] A — url1 [2] B — url2`). The URL or key may sit anywhere on
the line: bare, in `<…>`, in a Markdown link, after the title and a dash or colon.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from engine.citations.keys import DOCUMENT_KEY_PATTERN, EXTENSION_PATTERN, parse_document_key
from engine.citations.scanning import LINK_RE, first_url
from engine.citations.urls import has_scheme

_BOLD = r"(?:\*\*|__)"
_LABEL_PATTERN = (
    rf"\[\^?(?P<n_bracket>\d{{1,4}})\]{_BOLD}?:?"
    r"|［(?P<n_wide>\d{1,4})］|【(?P<n_lenticular>\d{1,4})】"
    r"|\((?P<n_paren>\d{1,4})\)(?=\s)"
    rf"|(?P<n_list>\d{{1,4}})[.)]{_BOLD}?(?=\s)"
    rf"|(?i:source|ref(?:erence)?)\s*#?(?P<n_word>\d{{1,4}}){_BOLD}?\s*[:.)\-–—]"
    r"|(?P<n_sup>[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})(?=\s)"
)
# What may precede an entry label on its line: indentation, a list bullet, bold.
LEAD_PATTERN = rf"\s*(?:[-*+•]\s+)?{_BOLD}?"
_ENTRY_RE = re.compile(rf"^(?P<lead>{LEAD_PATTERN})(?P<label>{_LABEL_PATTERN})(?P<rest>[\s\S]*)$")
_NUMBER_GROUPS = ("n_bracket", "n_wide", "n_lenticular", "n_paren", "n_list", "n_word", "n_sup")
_SUPERSCRIPT_VALUES = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
_BULLET_RE = re.compile(rf"^\s*[-*+•]\s+{_BOLD}?")
DEFINITION_RE = re.compile(r"^\s*\[\^?\d{1,4}\]:\s")
DOCUMENT_KEY_RE = re.compile(DOCUMENT_KEY_PATTERN, re.IGNORECASE)
# Every document key holds a dot and an extension. Searching for that first is much cheaper
# than `DOCUMENT_KEY_RE`, which tries a file name at every position of a line.
_KEY_EXTENSION_RE = re.compile(EXTENSION_PATTERN, re.IGNORECASE)

# Where a second entry may start on a line that holds several: a label after whitespace. The
# whitespace is matched rather than looked behind for (a scan for it is much faster); the label
# starts one character into the match, and no label ends in whitespace, so no label is missed.
_INNER_LABEL_RE = re.compile(
    r"\s(?:\[\^?\d{1,4}\]|［\d{1,4}］|【\d{1,4}】|\d{1,4}[.)](?=\s)|\(\d{1,4}\)(?=\s))"
)

TITLE_TRIM = " \t\r\n.:;,-–—|*_\"'`<>"
# Words that introduce the URL rather than name the source.
_LEAD_IN_RE = re.compile(
    r"(?:\b(?:available\s+(?:at|from|online)|retrieved\s+from|accessed\s+(?:at|via)|url|link)"
    r"\s*:?\s*)+$",
    re.IGNORECASE,
)


# The last words `_LEAD_IN_RE` can match, checked first because most titles end otherwise.
_LEAD_IN_ENDINGS = ("at", "from", "online", "via", "url", "link")

# The engine's own entry line, `[n] Title: url` or `[n] url`, with a plain title (see
# `is_plain_title`) and a plain URL (no character a URL scan stops at, a link starts with or a
# trim takes off). Nothing in such a line reads as a second label, a link or a key, so its entry
# follows from this one match (see `parse_plain_entry`).
PLAIN_URL_PATTERN = r"https?://[A-Za-z0-9.~%/:=&?+-]*[A-Za-z0-9~%/=&+-]"
# The characters of a plain title, one class (much faster to match than an alternation): a
# letter, then words, spaces, dots and harmless punctuation. `. ` is ruled out apart.
_PLAIN_TITLE_CHARS = r"[^\W\d_][\w ,;'&+?!.-]*"
_PLAIN_TITLE_RE = re.compile(_PLAIN_TITLE_CHARS)
_PLAIN_LINE_RE = re.compile(
    rf"\[(?P<number>\d{{1,4}})\] (?:(?P<title>{_PLAIN_TITLE_CHARS}): )?"
    rf"(?P<url>{PLAIN_URL_PATTERN})"
)


class SourceEntry(NamedTuple):
    """One entry of a sources list (or a footnote definition).

    `url` and `key` are as written; `locator` is whichever the entry has (URL first).
    `number_span` is None for an entry numbered by its position in a bulleted list.
    """

    number: int
    title: str | None
    url: str | None
    key: str | None
    line: str
    number_span: tuple[int, int] | None
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
        if url is None and key is None and number is not None and self.number_span is not None:
            start, end = self.number_span  # renumbering, the common case
            return line[:start] + str(number) + line[end:]
        edits: list[tuple[tuple[int, int], str]] = []
        if number is not None and self.number_span is not None:
            edits.append((self.number_span, str(number)))
        if url is not None and self.url_span is not None:
            edits.append((self.url_span, url))
        if key is not None and self.key_span is not None:
            edits.append((self.key_span, key))
        for (start, end), replacement in sorted(edits, reverse=True):
            line = line[:start] + replacement + line[end:]
        return line


# The label local search results put before a document's key ("Document: stopping.html"),
# which a model copies into its own references list between the title and the key.
_KEY_LABEL_RE = re.compile(r"\s+Document\s*:\s*$")


def clean_title(text: str) -> str | None:
    """A title as a reader should see it: one line, no link syntax or URL lead-in."""
    title = " ".join(_KEY_LABEL_RE.sub("", text).split()).strip(TITLE_TRIM)
    if title.lower().endswith(_LEAD_IN_ENDINGS):
        title = _LEAD_IN_RE.sub("", title).strip(TITLE_TRIM)
    for quote in ('"', "“", "”"):
        if title.count(quote) == 1:
            # Trimming the end took the closing quote of `"Title",`: drop its partner too.
            title = title.replace(quote, "", 1).strip(TITLE_TRIM)
    return title or None


def is_plain_title(title: str) -> bool:
    """True for a title that reads back unchanged in an entry line and holds no label.

    A letter first, then words, spaces, dots and harmless punctuation (never `. `, which could
    end a label such as `2. `), already as `clean_title` would leave it.
    """
    return _PLAIN_TITLE_RE.fullmatch(title) is not None and _is_clean_plain_title(title)


def _is_clean_plain_title(title: str) -> bool:
    """`is_plain_title` for a title known to be made of plain title characters.

    Such a title starts with a letter and holds no whitespace but spaces and no quote mark, so
    cleaning changes it only through a doubled or trailing space, trimmed punctuation at its
    end or a URL lead-in (checked the long way). `. ` could end a list label (`2. `).
    """
    if ". " in title or title[-1] in TITLE_TRIM or "  " in title:
        return False
    return not title.lower().endswith(_LEAD_IN_ENDINGS) or clean_title(title) == title


_CLOSERS = {"(": ")", "<": ">", "[": "]"}


def _cut(text: str, start: int, end: int) -> str:
    """`text` without `text[start:end]` and the brackets that held only it: `Title (url)`."""
    opener = text[start - 1 : start]
    if opener in _CLOSERS:
        if text[end : end + 1] == _CLOSERS[opener]:
            return text[: start - 1] + text[end + 1 :]
        if text[end - 1 : end] == _CLOSERS[opener]:
            # A page suffix took the closing bracket: `Guide (guide.pdf, p. 3)`.
            return text[: start - 1] + text[end:]
    return text[:start] + text[end:]


def may_hold_document_key(text: str) -> bool:
    """False when `text` certainly holds no document key (no dot before a document extension)."""
    return "." in text and _KEY_EXTENSION_RE.search(text) is not None


def has_locator(text: str) -> bool:
    """True when `text` holds a URL or a document key."""
    if first_url(text) is not None:
        return True
    return may_hold_document_key(text) and DOCUMENT_KEY_RE.search(text) is not None


def _entry_from_rest(
    line: str, rest_start: int, number: int, number_span: tuple[int, int] | None
) -> SourceEntry:
    """The entry whose URL, key and title are read from `line[rest_start:]`."""
    rest = line[rest_start:]
    url: str | None = None
    url_span: tuple[int, int] | None = None
    title_text = rest
    link = LINK_RE.search(rest) if "](" in rest else None
    if link is not None:
        raw = link.group("l_url")
        inner_start = link.start("l_url") + (1 if raw.startswith("<") else 0)
        target = raw.strip("<>").strip() or None
        span = None
        if target is not None:
            span = (rest_start + inner_start, rest_start + inner_start + len(target))
        title_text = rest[: link.start()] + link.group("l_text") + rest[link.end() :]
        if target is not None and not has_scheme(target) and parse_document_key(target):
            # `[Operations Manual](manual.pdf#page=3)`: a link to a local document.
            title = clean_title(title_text)
            return SourceEntry(number, title, None, target, line, number_span, None, span)
        url, url_span = target, span
    else:
        found = first_url(rest)
        if found is not None:
            start, end, url = found
            url_span = (rest_start + start, rest_start + end)
            title_text = _cut(rest, start, end)

    key: str | None = None
    key_span: tuple[int, int] | None = None
    if url is None and may_hold_document_key(rest):
        keys = list(DOCUMENT_KEY_RE.finditer(rest))
        if keys:
            last = keys[-1]
            key = last.group(0).strip()
            key_start = rest_start + last.start() + last.group(0).index(key)
            key_span = (key_start, key_start + len(key))
            title_text = _cut(rest, last.start(), last.end())
    title = clean_title(title_text)
    return SourceEntry(number, title, url, key, line, number_span, url_span, key_span)


def parse_entry(line: str) -> SourceEntry | None:
    """One sources-list line as an entry, or None when the line has no entry label."""
    match = _ENTRY_RE.match(line)
    if match is None or not match.group("rest").strip():
        # A label with nothing after it (`[2024]` alone on a line) cites nothing.
        return None
    group = next(name for name in _NUMBER_GROUPS if match.group(name) is not None)
    number = int(match.group(group).translate(_SUPERSCRIPT_VALUES))
    return _entry_from_rest(line, match.start("rest"), number, match.span(group))


def parse_plain_entry(line: str) -> SourceEntry | None:
    """`parse_entry(line)` for a plain `[n] Title: url` or `[n] url` line, else None.

    Such a line is also a single entry (`split_run_together` leaves it whole). Reading it
    takes one match instead of the general parser's label, URL and key scans.
    """
    match = _PLAIN_LINE_RE.fullmatch(line)
    if match is None:
        return None
    digits, title, url = match.groups()
    if title is not None and not _is_clean_plain_title(title):
        return None
    return plain_line_entry(int(digits), len(digits), title, url, line)


def plain_line_entry(
    number: int, digits: int, title: str | None, url: str, line: str
) -> SourceEntry:
    """The entry of a plain line `[n] Title: url` (or `[n] url`) whose number has `digits`."""
    url_span = (len(line) - len(url), len(line))
    return SourceEntry(number, title, url, None, line, (1, 1 + digits), url_span)


def parse_positional_entry(line: str, number: int) -> SourceEntry | None:
    """A bulleted or bare line that names a source, numbered by its position in the list."""
    if not line.strip():
        return None
    bullet = _BULLET_RE.match(line)
    return _entry_from_rest(line, bullet.end() if bullet else 0, number, None)


def is_bullet(line: str) -> bool:
    return _BULLET_RE.match(line) is not None


def split_run_together(line: str) -> list[str]:
    """The entries of a line that holds several (`[1] A — url1 [2] B — url2`).

    A label inside the line starts a new entry only once the text before it already has its
    URL or key, so a title such as `Report [2024]` is never cut. The whitespace before each
    cut is dropped: joined with newlines, the pieces are never longer than the line.
    """
    if "[" not in line and "." not in line and ")" not in line and "】" not in line:
        return [line]
    pieces: list[str] = []
    start = 0
    for match in _INNER_LABEL_RE.finditer(line):
        label = match.start() + 1
        if label <= start or not has_locator(line[start:label]):
            continue
        if _ENTRY_RE.match(line[label:]) is None:
            continue
        pieces.append(line[start:label].rstrip())
        start = label
    pieces.append(line[start:])
    return pieces
