"""Low-level scanning shared by every citation parser: URLs, code spans, tool markup, tokens.

Everything here is position-based: scanners return spans into the text they were given, so
the parsers built on top can rewrite a report in one left-to-right pass without re-searching.
"""

from __future__ import annotations

import re

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
_URL_TRAILING_PUNCT = ".,;:!?*_'\""

LINK_PATTERN = (
    r"(?P<l_bang>!?)\[(?P<l_text>[^\]\n]*)\]"
    r"\((?P<l_url><[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+\"[^\"\n]*\")?\)"
)
LINK_RE = re.compile(LINK_PATTERN)
HTML_ANCHOR_RE = re.compile(r"<a\s[^>]*>(?P<a_text>.*?)</a\s*>", re.IGNORECASE | re.DOTALL)

# Code is quoted material: markers, links and URLs inside it are left alone. A fence that is
# never closed runs to the end of the text, as Markdown renders it.
_CODE_RE = re.compile(r"```[\s\S]*?(?:```|\Z)|~~~[\s\S]*?(?:~~~|\Z)|`[^`\n]+`")

# Tool-call markup a model leaked into its prose instead of calling the tool.
_TOOL_MARKUP_PATTERN = (
    r"</?(?:tool_calls?|tool_use|function(?:_calls|s)?|invoke|parameter)(?=[\s>=:|/]|$)"
    r"|<\|(?:python_tag|tool_calls?|tool_call_begin|tool_calls_begin)\|?>?"
    r"|\[TOOL_CALLS\]"
)
_TOOL_MARKUP_RE = re.compile(_TOOL_MARKUP_PATTERN)

# (start, end, kind, match): one recognised piece of prose. `kind` says which scanner found it.
Token = tuple[int, int, str, "re.Match[str] | None"]


def scan_urls(text: str) -> list[tuple[int, int]]:
    """Spans of URLs as written (trailing punctuation not yet trimmed).

    Each colon is a candidate: the scheme is the run of scheme characters before it, starting
    with a letter. `scheme://...` is always a URL; `scheme:...` only for the opaque schemes.
    """
    spans: list[tuple[int, int]] = []
    colon = text.find(":")
    while colon != -1:
        if text[colon - 1 : colon] not in _ASCII_LETTERS and not text.startswith("//", colon + 1):
            # Neither `scheme://` nor an opaque scheme (those all end in a letter): `Title: …`.
            colon = text.find(":", colon + 1)
            continue
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


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """Every URL written in `text` as (start, end, url), trailing punctuation excluded."""
    if ":" not in text:
        return []
    found = []
    for start, end in scan_urls(text):
        url = trim_url(text[start:end])
        if url:
            found.append((start, start + len(url), url))
    return found


def first_url(text: str) -> tuple[int, int, str] | None:
    """The first URL of `text` as (start, end, url), or None."""
    if ":" not in text:
        return None
    for start, end in scan_urls(text):
        url = trim_url(text[start:end])
        if url:
            return start, start + len(url), url
    return None


def code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of inline code and fenced blocks."""
    if "`" not in text and "~~~" not in text:
        return []
    return [match.span() for match in _CODE_RE.finditer(text)]


def code_tokens(text: str) -> list[Token]:
    return [(start, end, "code", None) for start, end in code_spans(text)]


def merge_tokens(*groups: list[Token]) -> list[Token]:
    """Tokens in text order, dropping any that overlap an earlier one.

    Groups are given in priority order: at the same start, the earlier group wins (code first,
    so nothing inside a code span is ever a marker, link or URL).
    """
    filled = [group for group in groups if group]
    if len(filled) == 1 and _in_order_and_apart(filled[0]):
        return list(filled[0])  # prose with one kind of token (markers, say): nothing to merge
    ranked = sorted((token[0], rank, token) for rank, group in enumerate(groups) for token in group)
    merged: list[Token] = []
    end = 0
    for start, _, token in ranked:
        if start >= end:
            merged.append(token)
            end = token[1]
    return merged


def _in_order_and_apart(tokens: list[Token]) -> bool:
    """True when each token starts after the one before it has ended (so sorting keeps all)."""
    previous_start, previous_end = -1, 0
    for start, end, _, _ in tokens:
        if start <= previous_start or start < previous_end:
            return False
        previous_start, previous_end = start, end
    return True


def find_tool_markup(text: str) -> int | None:
    """Offset of the first leaked tool-call tag (`<tool_call`, `<function`, `<invoke` ...).

    Tags quoted in code spans are documentation, not leaks, and are ignored.
    """
    if "<" not in text and "[TOOL_CALLS]" not in text:
        return None
    code: list[tuple[int, int]] | None = None
    for match in _TOOL_MARKUP_RE.finditer(text):
        if code is None:
            code = code_spans(text)
        if not any(start <= match.start() < end for start, end in code):
            return match.start()
    return None
