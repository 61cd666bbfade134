"""Parsing inline markers and sources sections."""

from __future__ import annotations

import pytest

from engine.citations.parse import (
    find_inline_markers,
    find_tool_markup,
    parse_entry,
    parse_report,
    parse_sources_section,
)

MARKER_CASES = [
    ("Claim [1].", [(1,)]),
    ("Claim [1, 3].", [(1, 3)]),
    ("Claim [1,3;5].", [(1, 3, 5)]),
    ("Claim [2-4].", [(2, 3, 4)]),
    ("Claim [2–4].", [(2, 3, 4)]),
    ("Claim [1, 3-4].", [(1, 3, 4)]),
    ("Claim [^5].", [(5,)]),
    ("Claim ［6］.", [(6,)]),
    ("Claim 【7】.", [(7,)]),
    ("Claim [1][2].", [(1,), (2,)]),
    ("In [2024] it grew.", []),
    ("See [the docs](https://x.org) and [1](https://y.org).", []),
    ("Use `items[0]` and `x[1]` here.", []),
    ("```\nvalues[3]\n```", []),
    ("Pages [1-5000] of the archive.", []),
    ("No markers at all.", []),
]


@pytest.mark.parametrize(("text", "expected"), MARKER_CASES)
def test_find_inline_markers(text: str, expected: list[tuple[int, ...]]) -> None:
    assert [m.numbers for m in find_inline_markers(text)] == expected


def test_marker_spans_point_at_the_marker_text() -> None:
    text = "Alpha [12] beta [^3]."
    markers = find_inline_markers(text)
    assert [text[m.start : m.end] for m in markers] == ["[12]", "[^3]"]
    assert [m.footnote for m in markers] == [False, True]


def test_a_year_that_is_a_listed_number_is_a_marker() -> None:
    assert [m.numbers for m in find_inline_markers("Fact [1200].", {1200})] == [(1200,)]
    assert find_inline_markers("Fact [1200].", {1, 2}) == []


ENTRY_CASES = [
    # (line, number, title, url, key)
    ("[1] Title: https://x.org/a", 1, "Title", "https://x.org/a", None),
    ("- [2] Title - https://x.org/b", 2, "Title", "https://x.org/b", None),
    ("* [3] https://x.org/c", 3, None, "https://x.org/c", None),
    ("4. Some Title. https://x.org/d.", 4, "Some Title", "https://x.org/d", None),
    ("5) Title <https://x.org/e>", 5, "Title", "https://x.org/e", None),
    ("[6] [Linked Title](https://x.org/f)", 6, "Linked Title", "https://x.org/f", None),
    ("[^7]: Footnote title https://x.org/g", 7, "Footnote title", "https://x.org/g", None),
    ("［8］ Wide https://x.org/h", 8, "Wide", "https://x.org/h", None),
    ("【9】 Lenticular https://x.org/i", 9, "Lenticular", "https://x.org/i", None),
    ("**[10]** Bold: https://x.org/j", 10, "Bold", "https://x.org/j", None),
    ("[11] Report [2024]: https://x.org/k", 11, "Report [2024]", "https://x.org/k", None),
    ("[12] Wiki (https://x.org/Foo_(bar))", 12, "Wiki", "https://x.org/Foo_(bar)", None),
    ("[3] Coroutines and Tasks: asyncio-task.html", 3, "Coroutines and Tasks", None,
     "asyncio-task.html"),
    ("[4] guide.pdf, p.15", 4, None, None, "guide.pdf, p.15"),
    ("[5] notes.md", 5, None, None, "notes.md"),
    ("[6] Example Domain example.com", 6, "Example Domain example.com", None, None),
    ("[7] Just some words", 7, "Just some words", None, None),
    ("[8] Truncated https://x.org/very/long...", 8, "Truncated", "https://x.org/very/long...",
     None),
    ("[9] Unsafe javascript:alert(1)", 9, "Unsafe", "javascript:alert(1)", None),
]  # fmt: skip


@pytest.mark.parametrize(("line", "number", "title", "url", "key"), ENTRY_CASES)
def test_parse_entry(
    line: str, number: int, title: str | None, url: str | None, key: str | None
) -> None:
    entry = parse_entry(line)
    assert entry is not None
    assert (entry.number, entry.title, entry.url, entry.key) == (number, title, url, key)


def test_entry_render_replaces_only_number_and_url() -> None:
    entry = parse_entry("- [12] A title (2020) - https://x.org/a/?utm_source=z")
    assert entry is not None
    assert entry.render(number=3, url="https://x.org/a") == "- [3] A title (2020) - https://x.org/a"
    key_entry = parse_entry("4. Guide, guide.pdf p. 16")
    assert key_entry is not None
    assert key_entry.render(number=1, key="guide.pdf, p.15") == "1. Guide, guide.pdf, p.15"


HEADINGS = [
    "## Sources",
    "# References",
    "### Reference List",
    "**Sources**",
    "**References:**",
    "Sources",
    "Sources:",
    "REFERENCES",
]


@pytest.mark.parametrize("heading", HEADINGS)
def test_every_heading_style_starts_the_section(heading: str) -> None:
    report = f"Intro [1].\n\n{heading}\n[1] One: https://x.org/1\n2. Two: https://x.org/2\n"
    entries = parse_sources_section(report)
    assert [(e.number, e.url) for e in entries] == [(1, "https://x.org/1"), (2, "https://x.org/2")]


def test_numbered_lists_in_the_body_are_not_entries() -> None:
    report = "Steps:\n1. Install https://x.org/install\n2. Run it\n\n## Sources\n[1] A: https://x.org/a\n"
    assert [e.number for e in parse_sources_section(report)] == [1]
    assert "1. Install" in parse_report(report).body_text()


def test_a_stray_sources_word_does_not_start_the_section() -> None:
    report = (
        "Sources\nwere hard to find, said the team.\n\n1. First step\n\n"
        "Sources of funding vary [1].\n\n## References\n[1] A: https://x.org/a\n"
    )
    parsed = parse_report(report)
    assert [e.number for e in parsed.entries] == [1]
    assert "1. First step" in parsed.body_text()
    assert parsed.blocks[parsed.heading_index or 0] == "## References"


def test_section_ends_at_the_next_heading() -> None:
    report = "Body [1].\n\n## Sources\n[1] A: https://x.org/a\n\n## Appendix\n1. Not a source\n"
    parsed = parse_report(report)
    assert [e.number for e in parsed.entries] == [1]
    assert "1. Not a source" in parsed.body_text()


def test_footnote_definitions_count_anywhere_and_headless_lists_are_found() -> None:
    report = "Claim [^1].\n\n[^1]: Note https://x.org/n\n\nMore text [2].\n"
    assert [(e.number, e.url) for e in parse_sources_section(report)] == [(1, "https://x.org/n")]
    headless = "Claim [1].\n\n[1] A: https://x.org/a\n[2] guide.pdf\n"
    assert [e.locator for e in parse_sources_section(headless)] == ["https://x.org/a", "guide.pdf"]


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("Report.\n<tool_call>{}</tool_call>", 8),
        ("Report. <function=search>{}", 8),
        ("Report. <invoke name='x'>", 8),
        ("Report. <|python_tag|>x", 8),
        ("Mention `<tool_call>` in code.", None),
        ("A <b>bold</b> tag.", None),
    ],
)
def test_find_tool_markup(text: str, cut: int | None) -> None:
    assert find_tool_markup(text) == cut


def test_a_url_line_completes_only_the_last_entry_of_a_run_together_line() -> None:
    report = "## Sources\n[1] A https://x.org/a [2] B\nhttps://x.org/b\n"
    entries = parse_report(report).entries
    assert [(e.number, e.url) for e in entries] == [(1, "https://x.org/a"), (2, "https://x.org/b")]
    assert [e.line for e in entries] == ["[1] A https://x.org/a", "[2] B\nhttps://x.org/b"]
