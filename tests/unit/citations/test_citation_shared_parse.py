"""The verifier hands the sanitizer the parse of what it wrote: it must be that parse exactly."""

from __future__ import annotations

import pytest
from hypothesis import given

from engine.citations.canonical import canonical_entry
from engine.citations.entries import parse_entry, split_run_together
from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry
from engine.citations.sanitize import sanitize_report
from engine.citations.sections import parse_report, parse_with_sources
from engine.citations.verify import verify_and_parse, verify_citations
from tests.unit.citations.test_citation_format_properties import Answer, answers
from tests.unit.citations.test_citation_properties import FAST, registries, reports


def _assert_shared_parse_is_exact(report: str, registry: SourceRegistry, strict: bool) -> None:
    verification, parsed = verify_and_parse(report, registry, strict=strict)
    if parsed is not None:
        assert parsed == parse_report(verification.verified_report)
    checked = check_report(report, registry, strict=strict)
    separate = verify_citations(report, registry, strict=strict)
    assert checked.verification == separate
    assert checked.sanitization == sanitize_report(separate.verified_report)


@FAST
@given(reports(), registries)
def test_the_shared_parse_is_the_parse_of_the_verified_report(
    report: str, registry: SourceRegistry
) -> None:
    _assert_shared_parse_is_exact(report, registry, strict=False)
    _assert_shared_parse_is_exact(report, registry, strict=True)


@FAST
@given(answers())
def test_the_shared_parse_holds_for_every_mix_of_formats(
    pair: tuple[Answer, SourceRegistry],
) -> None:
    answer, registry = pair
    _assert_shared_parse_is_exact(answer.text, registry, strict=True)


def test_a_verified_report_with_sources_comes_with_its_parse() -> None:
    registry = SourceRegistry.from_sources(["https://sqlite.org/wal.html"], [])
    report = "WAL helps [1].\n\n## Sources\n[1] WAL: https://sqlite.org/wal.html\n"
    verification, parsed = verify_and_parse(report, registry)
    assert parsed is not None
    assert parsed == parse_report(verification.verified_report)
    assert [entry.url for entry in parsed.entries] == ["https://sqlite.org/wal.html"]


@pytest.mark.parametrize(
    ("title", "locator"),
    [
        ("Write-Ahead Logging", "https://sqlite.org/wal.html"),
        (None, "https://sqlite.org/wal.html"),
        ("Report 973", "https://site1.example.org/a/b-2.html?q=1&page=2"),
        ("Open data", "https://example.com:8080/x"),
        ("Guide", "guide.pdf, p.15"),
        ("A title [2] with a label", "https://example.com/a"),
        ("Ends with a dot", "https://example.com/a."),
        ("Parens", "https://en.wikipedia.org/wiki/Lock_(computer_science)"),
        ("Quote's title", "https://example.com/a_b"),
    ],
)
def test_a_canonical_entry_is_what_its_line_parses_to(title: str | None, locator: str) -> None:
    line, entry = canonical_entry(7, title, locator)
    if entry is not None:
        assert entry == parse_entry(line)
        assert split_run_together(line) == [line]


def test_a_body_with_its_own_sources_heading_is_parsed_again() -> None:
    line, entry = canonical_entry(1, "WAL", "https://sqlite.org/wal.html")
    body = "Text.\n\nReferences\n[2] Other: https://example.com/other"
    assert parse_with_sources(body, "## Sources", [line], [entry], final_newline=True) is None
    plain = parse_with_sources("Text.", "## Sources", [line], [entry], final_newline=True)
    assert plain == parse_report(f"Text.\n\n## Sources\n{line}\n")
