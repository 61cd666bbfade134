"""verify_citations: every kept citation points at a retrieved source."""

from __future__ import annotations

import pytest

from engine.citations.registry import SourceRegistry
from engine.citations.verify import verify_citations

REGISTRY = SourceRegistry.from_sources(
    [
        "https://sqlite.org/wal.html",
        "https://docs.python.org/3/library/asyncio-task.html?highlight=gather",
        "https://example.com/articles/gil-and-io-bound-threads",
    ],
    ["guide.pdf, p.15", "asyncio-task.html"],
)


def _verify(entry_line: str, registry: SourceRegistry = REGISTRY):  # type: ignore[no-untyped-def]
    return verify_citations(f"Claim [1].\n\n## Sources\n{entry_line}\n", registry)


# (entry line, kept source or None, removal reason or None)
ENTRY_OUTCOMES = [
    ("[1] WAL: https://sqlite.org/wal.html", "https://sqlite.org/wal.html", None),
    ("[1] WAL: https://SQLITE.org/wal.html/#intro", "https://sqlite.org/wal.html", None),
    (
        "[1] GIL: https://example.com/articles/gil-and-io",
        "https://example.com/articles/gil-and-io-bound-threads",
        None,
    ),
    (
        "[1] Tasks: https://docs.python.org/3/library/asyncio-task.html",
        "https://docs.python.org/3/library/asyncio-task.html?highlight=gather",
        None,
    ),
    ("[1] Guide: GUIDE.pdf p. 16", "guide.pdf, p.15", None),
    ("[1] Coroutines and Tasks: asyncio-task.html", "asyncio-task.html", None),
    ("[1] Invented: https://made-up.example/paper", None, "url_not_in_registry"),
    ("[1] WAL over http: http://sqlite.org/wal.html", None, "url_not_in_registry"),
    ("[1] Missing doc: missing.pdf, p.3", None, "citation_key_not_in_registry"),
    ("[1] A book I remember", None, "unverifiable"),
]


@pytest.mark.parametrize(("line", "kept", "reason"), ENTRY_OUTCOMES)
def test_each_entry_is_kept_or_removed_with_its_reason(
    line: str, kept: str | None, reason: str | None
) -> None:
    result = _verify(line)
    if kept is not None:
        assert [(c.number, c.source) for c in result.valid_citations] == [(1, kept)]
        assert result.removed_citations == []
        assert kept in result.verified_report
        assert "Claim [1]." in result.verified_report
        assert (result.status, result.reason) == ("verified", "valid_citations")
    else:
        assert result.valid_citations == []
        assert [(c.number, c.reason) for c in result.removed_citations] == [(1, reason)]
        assert result.verified_report == "Claim.\n"
        assert (result.status, result.reason) == ("unverified", "no_valid_citations")


def test_matched_url_is_rewritten_to_the_registry_url_in_the_canonical_line() -> None:
    result = _verify("- [1] GIL - https://example.com/articles/gil-and-io")
    assert result.verified_report == (
        "Claim [1].\n\n## Sources\n[1] GIL: https://example.com/articles/gil-and-io-bound-threads\n"
    )


def test_duplicates_keep_the_lowest_number_and_rewrite_markers() -> None:
    report = (
        "First [1]. Second [3]. Both [1, 3]. Other [2].\n\n## Sources\n"
        "[3] WAL again: https://sqlite.org/wal.html?utm_source=x\n"
        "[1] WAL: https://sqlite.org/wal.html\n"
        "[2] Guide: guide.pdf\n"
    )
    result = verify_citations(report, REGISTRY)
    assert [(c.number, c.reason) for c in result.removed_citations] == [
        (3, "duplicate_of_citation_1")
    ]
    assert [c.number for c in result.valid_citations] == [1, 2]
    assert "First [1]. Second [1]. Both [1]. Other [2]." in result.verified_report
    assert "WAL again" not in result.verified_report


MARKER_CLEANUP = [
    ("Fact [9].", "Fact."),
    ("Fact [9], then more.", "Fact, then more."),
    ("Fact [9] [8]; next.", "Fact; next."),
    ("Fact [1, 9].", "Fact [1]."),
    ("Fact [9-10] and [1].", "Fact and [1]."),
    ("Fact [^9] ok [1].", "Fact ok [1]."),
    ("Fact ［9］ ok 【1】.", "Fact ok 【1】."),
    ("[9] Fact starts here [1].", "Fact starts here [1]."),
    ("Year [2024] stays [1].", "Year [2024] stays [1]."),
]


@pytest.mark.parametrize(("body", "expected"), MARKER_CLEANUP)
def test_markers_of_missing_entries_leave_no_dangling_spaces(body: str, expected: str) -> None:
    report = f"{body}\n\n## Sources\n[1] WAL: https://sqlite.org/wal.html\n"
    result = verify_citations(report, REGISTRY)
    assert result.verified_report.split("\n")[0] == expected


def test_removed_entries_disappear_with_the_empty_heading() -> None:
    report = "Intro [1] and [2].\n\n## References\n[1] Fake: https://nope.example/x\n[2] Nothing\n"
    result = verify_citations(report, REGISTRY)
    assert result.verified_report == "Intro and.\n"
    assert [c.reason for c in result.removed_citations] == ["url_not_in_registry", "unverifiable"]


def test_empty_registry_returns_report_unchanged() -> None:
    report = "Claim [1].\n\n## Sources\n[1] X: https://nope.example/x\n"
    result = verify_citations(report, SourceRegistry())
    assert result.verified_report == report
    assert (result.status, result.reason) == ("unverified", "no_sources")
    assert result.valid_citations == [] and result.removed_citations == []


def test_strict_empty_registry_removes_every_citation() -> None:
    report = "Claim [1] and another [2].\n\n## Sources\n[1] X: https://nope.example/x\n[2] y.md\n"
    result = verify_citations(report, SourceRegistry(), strict=True)
    assert "[1]" not in result.verified_report and "nope.example" not in result.verified_report
    assert result.verified_report.startswith("Claim and another.")
    assert (result.status, result.reason) == ("unverified", "no_sources")
    assert [c.reason for c in result.removed_citations] == [
        "url_not_in_registry",
        "citation_key_not_in_registry",
    ]


def test_report_without_sources_loses_its_markers() -> None:
    result = verify_citations("A claim [1] with no list [2].", REGISTRY)
    assert result.verified_report == "A claim with no list."
    assert (result.status, result.reason) == ("unverified", "no_valid_citations")


def test_verified_report_verifies_to_itself() -> None:
    report = (
        "# Title\n\nA [1]. B [2]. C [3, 4]. D [5].\n\n**Sources**\n"
        "1. WAL: https://sqlite.org/wal.html/\n2. Fake: https://nope.example\n"
        "3. Tasks: asyncio-task.html\n4. Same WAL https://sqlite.org/wal.html\n5. Nothing\n"
    )
    first = verify_citations(report, REGISTRY)
    second = verify_citations(first.verified_report, REGISTRY)
    assert second.verified_report == first.verified_report
    assert second.removed_citations == []
    assert [c.model_dump() for c in second.valid_citations] == [
        c.model_dump() for c in first.valid_citations
    ]


def test_valid_citation_title_falls_back_to_the_registry_title() -> None:
    registry = SourceRegistry()
    registry.add_url("https://sqlite.org/wal.html", "Write-Ahead Logging")
    result = verify_citations("X [1].\n\n## Sources\n[1] https://sqlite.org/wal.html\n", registry)
    assert result.valid_citations[0].title == "Write-Ahead Logging"


def test_verification_is_a_fixed_point_even_when_deletion_forms_a_new_entry() -> None:
    # Deleting the dangling `[^1]` turns the line into a definition of entry 2024.
    registry = SourceRegistry.from_sources(["https://example.com/b?x=1"])
    once = verify_citations("[2024] [^1]: Note https://example.com/b\n", registry)
    assert verify_citations(once.verified_report, registry).verified_report == (
        once.verified_report
    )
    assert "https://example.com/b?x=1" in once.verified_report


def test_an_unretrieved_link_goes_with_the_words_that_introduced_it() -> None:
    # The local model copied "…found at https://github.com/google/brotli" from mod_brotli.html.
    report = (
        "This module uses the Brotli library found at https://github.com/google/brotli. [1]\n\n"
        "## Sources\n[1] mod_brotli: asyncio-task.html\n"
    )

    result = verify_citations(report, REGISTRY)

    assert result.verified_report.splitlines()[0] == "This module uses the Brotli library. [1]"
    assert [c.source for c in result.removed_citations] == ["https://github.com/google/brotli"]


def test_the_key_label_of_a_search_result_copied_into_an_entry_is_not_its_title() -> None:
    # "[1] <title>\nDocument: stopping.html", as the search showed it, written on one line.
    report = (
        "It stops gracefully [1].\n\n## References\n"
        "[1] Stopping and Restarting Apache HTTP Server Document: asyncio-task.html\n"
    )

    result = verify_citations(report, REGISTRY)

    assert "[1] Stopping and Restarting Apache HTTP Server: asyncio-task.html" in (
        result.verified_report
    )
