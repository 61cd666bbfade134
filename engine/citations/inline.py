"""Inline citations that name their source instead of numbering it.

Models cite by name as often as by number: `[Source: Write-Ahead Logging]`,
`(Source: https://sqlite.org/wal.html)`, `[https://…]`, `(guide.pdf, p. 3)`,
`[see notes.md]`, a Markdown link `[the WAL page](https://…)`, or a bare URL. This module
finds them and says what each names (a URL, a document key or a title); resolving the name
against the sources list and the registry is `engine.citations.resolve`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from engine.citations.entries import DOCUMENT_KEY_RE, TITLE_TRIM, may_hold_document_key
from engine.citations.keys import parse_document_key
from engine.citations.markers import marker_tokens
from engine.citations.scanning import (
    LINK_RE,
    Token,
    code_tokens,
    find_urls,
    merge_tokens,
    scan_urls,
)
from engine.citations.urls import has_scheme

RefKind = Literal["url", "key", "title"]

# Labels that introduce a name. After "Source:" any title may follow; after "see", "via" or
# nothing at all only a URL or a document key counts, so `(see below)` stays prose.
_TITLE_LABELS = r"sources?|references?|refs?\.?|citations?|cited|cite"
_OTHER_LABELS = r"see(?:\s+also)?|via|from|retrieved\s+from|in"
_NAMED_RE = re.compile(
    r"(?P<r_open>[\[(])[ \t]*"
    rf"(?:(?P<r_title_label>(?i:{_TITLE_LABELS}))[ \t]*:[ \t]*"
    rf"|(?P<r_other_label>(?i:{_TITLE_LABELS}|{_OTHER_LABELS}))(?:[ \t]*:[ \t]*|[ \t]+))?"
    r"(?P<r_ref>(?:[^\[\]()\n]|\([^()\n]*\)){1,300}?)[ \t]*(?P<r_close>[\])])(?!\()"
)
# What a named citation starts with, one regex per opening bracket (a literal first character is
# found much faster than a set of them).
_NAMED_HINT_RES = tuple(
    re.compile(rf"\{opener}[ \t]*(?:(?i:source|ref|cit|see|via|from|in)|http|[\w.-]+\.)")
    for opener in "[("
)
_REF_SPLIT_RE = re.compile(r"\s*(?:;|\s\|\s)\s*")
# A link whose text is only a number or the word "source" is a marker, not prose.
_MARKER_TEXT_RE = re.compile(r"^\s*(?:\^?\d{1,4}|(?i:sources?|ref|link|cite)(?:\s*\d{1,4})?)\s*$")


@dataclass(frozen=True)
class Ref:
    """One name a citation gives its source."""

    kind: RefKind
    text: str


def _only_separators(text: str) -> bool:
    return not text.strip(TITLE_TRIM + " ,&()[]").replace(" and ", "").strip()


def refs_of(content: str, titles_allowed: bool) -> list[Ref]:
    """The names in a citation's text: its URLs, else its document keys, else titles.

    Several names are separated by `;` or `|`; URLs and keys may also be separated by commas.
    Without a "Source:" label (`titles_allowed` False) the text must be nothing but URLs or
    keys, so a parenthesis of prose that mentions a URL is not swallowed. Returns [] when the
    text names nothing this citation style allows.
    """
    urls = find_urls(content)
    if urls:
        leftover = content
        for start, end, _ in reversed(urls):
            leftover = leftover[:start] + " " + leftover[end:]
        if titles_allowed or _only_separators(leftover):
            return [Ref("url", url) for _, _, url in urls]
        return []
    keys: list[str] = []
    if may_hold_document_key(content):
        keys = [match.group(0).strip() for match in DOCUMENT_KEY_RE.finditer(content)]
    if keys and (titles_allowed or _only_separators(DOCUMENT_KEY_RE.sub(" ", content))):
        return [Ref("key", key) for key in keys if parse_document_key(key) is not None]
    if not titles_allowed:
        return []
    pieces = [piece.strip(TITLE_TRIM) for piece in _REF_SPLIT_RE.split(content.strip())]
    return [Ref("title", piece) for piece in pieces if piece]


@dataclass(frozen=True)
class NamedCitation:
    """A citation by name: its span, the names it gives, and the prose to keep in its place."""

    start: int
    end: int
    refs: tuple[Ref, ...]
    keep_text: str = ""
    kind: Literal["named", "link", "url"] = "named"
    # A bare file name in parentheses, `(config.yaml)`, may be prose: when it names nothing
    # retrieved it is left as written rather than removed.
    soft: bool = False


def _named(match: re.Match[str]) -> NamedCitation | None:
    if (match.group("r_open") == "(") != (match.group("r_close") == ")"):
        return None
    labelled = match.group("r_title_label") is not None
    refs = refs_of(match.group("r_ref"), titles_allowed=labelled)
    if not refs:
        return None
    soft = match.group("r_open") == "(" and not labelled and all(r.kind == "key" for r in refs)
    return NamedCitation(match.start(), match.end(), tuple(refs), soft=soft)


def _link(match: re.Match[str]) -> NamedCitation:
    target = match.group("l_url").strip("<>").strip()
    text = match.group("l_text")
    keep = "" if _MARKER_TEXT_RE.match(text) else text
    # A link to a local document (`[the guide](guide.pdf#page=3)`) names a document key.
    is_key = not has_scheme(target) and parse_document_key(target) is not None
    ref = Ref("key" if is_key else "url", target)
    return NamedCitation(match.start(), match.end(), (ref,), keep, "link")


def citation_tokens(text: str) -> list[Token]:
    """Code, numbered markers, named citations, links and bare URLs of prose, in text order.

    Overlaps resolve by priority: code, then links, numbered markers, named citations and
    last bare URLs, so a URL inside `[Source: …]` or a link is not cited twice.
    """
    links: list[Token] = []
    if "](" in text:
        links = [(m.start(), m.end(), "link", m) for m in LINK_RE.finditer(text)]
    named: list[Token] = []
    if any(hint.search(text) for hint in _NAMED_HINT_RES):
        # Only real named citations compete for their span: `( [1] )` must stay a marker.
        named = [(m.start(), m.end(), "named", m) for m in _NAMED_RE.finditer(text) if _named(m)]
    urls: list[Token] = [(start, end, "url", None) for start, end in scan_urls(text)]
    return merge_tokens(code_tokens(text), links, marker_tokens(text), named, urls)


def named_citation(token: Token) -> NamedCitation | None:
    """The named citation a `named` or `link` token stands for, or None when it is prose."""
    _, _, kind, match = token
    if match is None:
        return None
    if kind == "link":
        return _link(match)
    if kind == "named":
        return _named(match)
    return None
