"""sanitize_report: unsafe URLs out, links collapsed, numbers closed up."""

from __future__ import annotations

import pytest

from engine.citations.sanitize import URL_SHORTENER_HOSTS, sanitize_report, unsafe_url_reason

SAFE = "https://sqlite.org/wal.html"

URL_REASONS = [
    *[(f"https://{host}/abc", "shortened_url") for host in sorted(URL_SHORTENER_HOSTS)],
    ("https://www.bit.ly/abc", "shortened_url"),
    ("https://bit.ly:443/abc", "shortened_url"),
    ("https://BIT.LY/abc", "shortened_url"),
    ("https://example.com/articles/some-long-ti...", "truncated_url"),
    ("https://example.com/articles/some…title", "truncated_url"),
    ("http://192.168.1.10/report", "ip_address_url"),
    ("https://8.8.8.8:8080/x", "ip_address_url"),
    ("http://[::1]/admin", "ip_address_url"),
    ("http://[2001:db8::1]:8080/x", "ip_address_url"),
    ("http://2130706433/", "ip_address_url"),
    ("http://127.1/", "ip_address_url"),
    ("http://0x7f.0.0.1/", "ip_address_url"),
    ("http://0177.0.0.1/", "ip_address_url"),
    ("http://0x7f000001/", "ip_address_url"),
    ("https://cafe.bad/x", None),
    ("https://1.2.3.example/x", None),
    ("javascript:alert(1)", "unsafe_scheme"),
    ("JavaScript:alert(1)", "unsafe_scheme"),
    ("data:text/html;base64,PHNjcmlwdD4=", "unsafe_scheme"),
    ("vbscript:msgbox(1)", "unsafe_scheme"),
    ("file:///etc/passwd", "unsafe_scheme"),
    ("ftp://files.example.com/a", "unsafe_scheme"),
    (SAFE, None),
    ("https://bitly.com/pages/about", None),
    ("https://notbit.ly/abc", None),
    ("https://example.com/path/1.2.3.4", None),
]


@pytest.mark.parametrize(("url", "reason"), URL_REASONS)
def test_unsafe_url_reason(url: str, reason: str | None) -> None:
    assert unsafe_url_reason(url) == reason


@pytest.mark.parametrize(("url", "reason"), [case for case in URL_REASONS if case[1]])
def test_unsafe_entries_leave_with_their_markers(url: str, reason: str) -> None:
    report = f"Good [1]. Bad [2]. Both [1, 2].\n\n## Sources\n[1] Good: {SAFE}\n[2] Bad: {url}\n"
    result = sanitize_report(report)
    assert [(r.number, r.url, r.reason) for r in result.removed] == [(2, url, reason)]
    assert result.sanitized_report == (
        f"Good [1]. Bad. Both [1].\n\n## Sources\n[1] Good: {SAFE}\n"
    )


def test_numbers_close_up_in_list_order_without_collisions() -> None:
    sources = "\n".join(
        f"[{n}] Source {n}: https://bit.ly/{n}" if n in (1, 2, 3) else
        f"[{n}] Source {n}: https://example.org/{n}"
        for n in range(1, 12)
    )  # fmt: skip
    report = f"Ten [10]. One [1]. Eleven [11]. Four [4, 10].\n\n## Sources\n{sources}\n"
    result = sanitize_report(report)
    body, _, listing = result.sanitized_report.partition("\n\n## Sources\n")
    assert body == "Ten [7]. One. Eleven [8]. Four [1, 7]."
    assert listing.splitlines()[0] == "[1] Source 4: https://example.org/4"
    assert listing.splitlines()[-1] == "[8] Source 11: https://example.org/11"
    assert result.renumbered == {n: n - 3 for n in range(4, 12)}


def test_list_order_decides_new_numbers() -> None:
    report = "B [2] then A [1].\n\n## Sources\n[2] B: https://b.org\n[1] A: https://a.org\n"
    result = sanitize_report(report)
    assert result.sanitized_report == (
        "B [1] then A [2].\n\n## Sources\n[1] B: https://b.org\n[2] A: https://a.org\n"
    )


def test_markdown_links_collapse_to_their_text() -> None:
    report = (
        "Read [the WAL page](https://sqlite.org/wal.html) and ![diagram](https://x.org/d.png), "
        'not [this](javascript:alert(document.cookie)) or <a href="data:x">that</a> [1].\n\n'
        f"## Sources\n[1] WAL: {SAFE}\n"
    )
    result = sanitize_report(report)
    first_line = result.sanitized_report.splitlines()[0]
    assert first_line == "Read the WAL page and diagram, not this or that [1]."
    assert [(r.url, r.reason) for r in result.removed] == [
        ("javascript:alert(document.cookie)", "unsafe_scheme")
    ]


def test_bare_body_urls_become_their_citation_or_go() -> None:
    report = (
        f"See {SAFE}/ for details, and https://bit.ly/x (shortened) and "
        "<https://unlisted.example/page>.\n\n## Sources\n[1] Fake short: https://t.co/x\n"
        f"[2] WAL: {SAFE}\n"
    )
    result = sanitize_report(report)
    assert result.sanitized_report.splitlines()[0] == ("See [1] for details, and (shortened) and.")
    reasons = [(r.number, r.url, r.reason) for r in result.removed]
    assert (1, "https://t.co/x", "shortened_url") in reasons
    assert (None, "https://bit.ly/x", "shortened_url") in reasons
    assert (None, "https://unlisted.example/page", "not_a_listed_source") in reasons


@pytest.mark.parametrize(
    "markup",
    [
        '<tool_call>{"name": "search"}</tool_call>',
        '<function=search_web>{"query": "x"}</function>',
        '<invoke name="fetch_url">',
        "<function_calls><invoke>",
        "<|python_tag|>search(x)",
    ],
)
def test_leaked_tool_markup_and_everything_after_is_cut(markup: str) -> None:
    report = f"Findings [1].\n\n## Sources\n[1] WAL: {SAFE}\n\n{markup}\nmore text [1]\n"
    result = sanitize_report(report)
    assert result.tool_markup_removed is True
    assert result.sanitized_report == f"Findings [1].\n\n## Sources\n[1] WAL: {SAFE}"


def test_document_key_entries_are_kept() -> None:
    report = "A [1]. B [2].\n\n## References\n[1] Tasks: asyncio-task.html\n[2] guide.pdf, p.15\n"
    result = sanitize_report(report)
    assert result.sanitized_report == report
    assert result.removed == []


def test_markers_without_a_sources_list_are_left_alone() -> None:
    report = "A claim [3] in a draft with no list."
    assert sanitize_report(report).sanitized_report == report


def test_markers_pointing_nowhere_are_dropped_when_a_list_exists() -> None:
    report = f"A [1]. B [7].\n\n## Sources\n[1] WAL: {SAFE}\n"
    assert sanitize_report(report).sanitized_report.startswith("A [1]. B.\n")


def test_all_sources_unsafe_removes_the_heading() -> None:
    report = "Only [1].\n\n## Sources\n[1] Short: https://bit.ly/x\n"
    assert sanitize_report(report).sanitized_report == "Only.\n"


def test_clean_report_is_unchanged() -> None:
    report = f"# Title\n\nA [1].\n\n## Sources\n[1] WAL: {SAFE}\n"
    result = sanitize_report(report)
    assert result.sanitized_report == report
    assert result.removed == [] and result.tool_markup_removed is False


def test_a_link_taken_out_takes_the_words_that_introduced_it_when_the_sentence_ends() -> None:
    # The local model copied "…the Brotli library found at <url>" from the page it read.
    report = (
        "This module uses the Brotli library found at https://github.com/google/brotli.\n"
        "Download it from https://unlisted.example/x, then build it.\n"
        "The notes at https://unlisted.example/y describe it.\n"
    )
    lines = sanitize_report(report).sanitized_report.splitlines()
    assert lines == [
        "This module uses the Brotli library.",
        "Download it, then build it.",
        "The notes at describe it.",
    ]
