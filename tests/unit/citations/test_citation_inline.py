"""The pieces under the model-format tests: marker styles, named citations, entry lines."""

from __future__ import annotations

import pytest

from engine.citations.entries import parse_entry, split_run_together
from engine.citations.inline import Ref, citation_tokens, named_citation, refs_of
from engine.citations.markers import find_inline_markers

MARKER_STYLES = [
    ("Claim [ 2 ].", [(2,)], ["bracket"]),
    ("Claim [^1][^2].", [(1,), (2,)], ["footnote", "footnote"]),
    ("Claim【3†L2-L4】 and【4†source】.", [(3,), (4,)], ["browse", "browse"]),
    ("Claim (Source 1).", [(1,)], ["word"]),
    ("Claim (Sources 1, 2) and (sources 3 and 4).", [(1, 2), (3, 4)], ["word", "word"]),
    ("Claim [Source 5] and [Sources 1-3].", [(5,), (1, 2, 3)], ["word", "word"]),
    ("Claim (Source: 2).", [(2,)], ["word"]),
    ("Claim (Source 1] is not a marker.", [], []),
    ("Claim (Sources vary).", [], []),
    ("Readers¹ and writers²˒³ and pages¹⁻³.", [(1,), (2, 3), (1, 2, 3)], ["superscript"] * 3),
]


@pytest.mark.parametrize(("text", "numbers", "styles"), MARKER_STYLES)
def test_marker_styles(text: str, numbers: list[tuple[int, ...]], styles: list[str]) -> None:
    markers = find_inline_markers(text, {1, 2, 3, 4, 5})
    assert [m.numbers for m in markers] == numbers
    assert [m.style for m in markers] == styles


@pytest.mark.parametrize(
    ("text", "known", "numbers"),
    [
        ("Readers¹².", {12}, [(12,)]),  # twelve when twelve is listed
        ("Readers¹².", {1, 2}, [(1, 2)]),  # else one and two when both are
        ("Area 10 km² and x² and E = mc² and 2¹⁰ [1].", {1, 2, 10}, [(1,)]),
        ("Area grows as r² [1].", {1, 2}, [(1,)]),  # `[1]` is the citation style here
        ("Only superscripts here⁷.", set(), [(7,)]),  # the only numbered style: it cites
    ],
)
def test_superscripts_cite_only_where_citations_stand(
    text: str, known: set[int], numbers: list[tuple[int, ...]]
) -> None:
    assert [m.numbers for m in find_inline_markers(text, known)] == numbers


REFS = [
    ("Write-Ahead Logging", True, [Ref("title", "Write-Ahead Logging")]),
    ("A; B | C", True, [Ref("title", "A"), Ref("title", "B"), Ref("title", "C")]),
    ("SQLite docs, https://sqlite.org/wal.html", True, [Ref("url", "https://sqlite.org/wal.html")]),
    ("https://a.org/x, https://b.org/y", False, [Ref("url", "https://a.org/x"),
                                                 Ref("url", "https://b.org/y")]),
    ("guide.pdf, p. 3", False, [Ref("key", "guide.pdf, p. 3")]),
    ("guide.pdf (page 3); notes.md", False, [Ref("key", "guide.pdf (page 3)"),
                                             Ref("key", "notes.md")]),
    ("released 2023, see https://x.org/a for details", False, []),
    ("Write-Ahead Logging", False, []),
]  # fmt: skip


@pytest.mark.parametrize(("content", "titles_allowed", "refs"), REFS)
def test_refs_of(content: str, titles_allowed: bool, refs: list[Ref]) -> None:
    assert refs_of(content, titles_allowed) == refs


NAMED = [
    ("See [Source: Write-Ahead Logging].", [Ref("title", "Write-Ahead Logging")], ""),
    ("See (source: https://x.org/a).", [Ref("url", "https://x.org/a")], ""),
    ("See [https://x.org/a].", [Ref("url", "https://x.org/a")], ""),
    ("See (guide.pdf, page 7).", [Ref("key", "guide.pdf, page 7")], ""),
    ("See [see notes.md].", [Ref("key", "notes.md")], ""),
    ("See [the docs](https://x.org/a).", [Ref("url", "https://x.org/a")], "the docs"),
    ("See [2](https://x.org/a).", [Ref("url", "https://x.org/a")], ""),
    ("See [the guide](guide.pdf#page=3).", [Ref("key", "guide.pdf#page=3")], "the guide"),
]


@pytest.mark.parametrize(("text", "refs", "keep"), NAMED)
def test_named_citations(text: str, refs: list[Ref], keep: str) -> None:
    found = [
        citation
        for token in citation_tokens(text)
        if (citation := named_citation(token)) is not None
    ]
    assert [(list(c.refs), c.keep_text) for c in found] == [(refs, keep)]


@pytest.mark.parametrize(
    "text",
    ["See (see below).", "A parenthesis (with words) only.", "Use `[Source: X]` in code.",
     "Note [Sources vary]."],
)  # fmt: skip
def test_prose_in_brackets_is_not_a_named_citation(text: str) -> None:
    assert not [t for t in citation_tokens(text) if named_citation(t) is not None]


ENTRY_LABELS = [
    ("(3) Title https://x.org/c", 3, "Title", "https://x.org/c"),
    ("Source 4: Title https://x.org/d", 4, "Title", "https://x.org/d"),
    ("Reference #5 - Title https://x.org/e", 5, "Title", "https://x.org/e"),
    ("² Title https://x.org/f", 2, "Title", "https://x.org/f"),
    ("[6] gather() explained (https://x.org/g)", 6, "gather() explained", "https://x.org/g"),
    ('[7] "Quoted Title", https://x.org/h', 7, "Quoted Title", "https://x.org/h"),
    ("[8] Title. Retrieved from https://x.org/i", 8, "Title", "https://x.org/i"),
]


@pytest.mark.parametrize(("line", "number", "title", "url"), ENTRY_LABELS)
def test_entry_labels(line: str, number: int, title: str, url: str) -> None:
    entry = parse_entry(line)
    assert entry is not None
    assert (entry.number, entry.title, entry.url) == (number, title, url)


@pytest.mark.parametrize(
    ("line", "pieces"),
    [
        ("[1] A — https://a.org [2] B — https://b.org",
         ["[1] A — https://a.org", "[2] B — https://b.org"]),
        ("1. A https://a.org 2. B guide.pdf, p.3", ["1. A https://a.org", "2. B guide.pdf, p.3"]),
        ("[11] Report [2024]: https://x.org/k", ["[11] Report [2024]: https://x.org/k"]),
        ("[1] Python 3. Docs https://a.org", ["[1] Python 3. Docs https://a.org"]),
    ],
)  # fmt: skip
def test_entries_run_together_are_split_only_after_a_locator(line: str, pieces: list[str]) -> None:
    assert split_run_together(line) == pieces
