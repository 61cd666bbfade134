"""Shortcuts for the common case read exactly what the general code reads.

Each shortcut (a plain entry line, a plain title, a plain URL, a text that cannot hold a
document key, markers that need no merging) is checked against the general path it stands in
for, on text made of the characters that could tell them apart.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.citations.entries import (
    DOCUMENT_KEY_RE,
    clean_title,
    is_plain_title,
    may_hold_document_key,
    parse_entry,
    parse_plain_entry,
    split_run_together,
)
from engine.citations.scanning import Token, merge_tokens
from engine.citations.urls import _split

# The plain-title rule as first written: a letter, then harmless characters, never `. `.
_REFERENCE_TITLE_RE = re.compile(r"^[^\W\d_](?:[\w ,;'&+?!-]|\.(?! ))*$")

_TITLE_CHARS = "aZé5_ ,;'&+?!.-:()[]\"*<>|\t"
_URL_CHARS = "aZ09./:?#@[]%&=+-~_ \t\n)(,;!é"
_LEAD_INS = ["", " at", " online", " available at", " via", " url", " link"]

titles = st.builds(
    lambda text, lead: text + lead,
    st.text(alphabet=_TITLE_CHARS, min_size=1, max_size=12),
    st.sampled_from(_LEAD_INS),
)
urls = st.builds(
    lambda scheme, rest: scheme + rest,
    st.sampled_from(["https://", "http://", "HTTP://", "ftp://", "https:/", ""]),
    st.text(alphabet=_URL_CHARS, max_size=24),
)


def _urlsplit_parts(text: str) -> tuple[str, str, str, str] | None:
    try:
        split = urlsplit(text)
        _ = split.port
    except ValueError:
        return None
    return split.scheme, split.netloc, split.path, split.query


@settings(max_examples=600)
@given(urls)
def test_a_url_splits_as_urlsplit_splits_it(text: str) -> None:
    assert _split(text) == _urlsplit_parts(text)


def test_plain_urls_split_like_urlsplit() -> None:
    for text in [
        "https://site.example.org/a/b.html",
        "http://h/p?a=1&b=2?c#frag?x",
        "https://h#f?x",
        "https://h?q",
        "https:///no-host",
        "https://Host.EXAMPLE/%7Euser/",
    ]:
        assert _split(text) == _urlsplit_parts(text), text


@settings(max_examples=600)
@given(titles)
def test_a_plain_title_is_one_that_reads_back_unchanged(title: str) -> None:
    expected = bool(_REFERENCE_TITLE_RE.match(title)) and clean_title(title) == title
    assert is_plain_title(title) == expected


@settings(max_examples=600)
@given(st.integers(0, 12000), st.one_of(st.none(), titles), urls)
def test_a_plain_entry_line_reads_as_the_general_parser_reads_it(
    number: int, title: str | None, url: str
) -> None:
    line = f"[{number}] {url}" if title is None else f"[{number}] {title}: {url}"
    plain = parse_plain_entry(line)
    if plain is not None:
        assert plain == parse_entry(line)
        assert split_run_together(line) == [line]


def test_common_entry_lines_take_the_plain_reading() -> None:
    for line in [
        "[1] Write-Ahead Logging: https://sqlite.org/wal.html",
        "[12] https://docs.python.org/3/library/asyncio-task.html",
        "[3] Report 3, v1.2: https://example.org/a?b=1&c=2",
    ]:
        plain = parse_plain_entry(line)
        assert plain is not None
        assert plain == parse_entry(line)
    for line in [
        "[1] Report 2. Sources: https://example.org/a",  # `2. ` could start a second entry
        "[1] Guide: guide.pdf, p.3",
        "[1] Title: https://example.org/a.",  # the dot is trimmed from the URL
        "[1] Available at: https://example.org/a",  # a lead-in, not a title
    ]:
        assert parse_plain_entry(line) is None


@settings(max_examples=600)
@given(st.text(alphabet="guide.pdfmdtxPDF ,p1-/_é", max_size=20))
def test_text_with_a_document_key_is_never_passed_over(text: str) -> None:
    if DOCUMENT_KEY_RE.search(text):
        assert may_hold_document_key(text)


def _merge_by_sorting(*groups: list[Token]) -> list[Token]:
    ranked = sorted((token[0], rank, token) for rank, group in enumerate(groups) for token in group)
    merged: list[Token] = []
    end = 0
    for start, _, token in ranked:
        if start >= end:
            merged.append(token)
            end = token[1]
    return merged


spans = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 4)).map(lambda s: (s[0], s[0] + s[1], "m", None)),
    max_size=6,
)


@given(spans, st.integers(0, 2))
def test_a_single_group_of_tokens_merges_as_sorting_would(tokens: list[Token], place: int) -> None:
    groups: list[list[Token]] = [[], [], []]
    groups[place] = tokens
    assert merge_tokens(*groups) == _merge_by_sorting(*groups)
