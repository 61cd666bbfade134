"""Properties that must hold for any report, not just the hand-written ones."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.citations.parse import find_inline_markers, find_urls, parse_report
from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry
from engine.citations.sanitize import sanitize_report
from engine.citations.verify import verify_citations

HOSTS = ["example.com", "docs.python.org", "sqlite.org", "www.example.com"]
PATHS = ["", "/a", "/a/b", "/guide/wal.html", "/search?q=gil&page=2", "/x/y/z"]
DOCUMENTS = ["guide.pdf", "guide.pdf, p.15", "notes.md", "asyncio-task.html"]
WORDS = ["alpha", "beta", "gamma", "delta", "SQLite", "tasks", "GIL", "cache", "(see)", "2024"]

registered_urls = st.lists(
    st.builds(lambda h, p: f"https://{h}{p}", st.sampled_from(HOSTS), st.sampled_from(PATHS)),
    max_size=8,
)
registries = st.builds(
    SourceRegistry.from_sources, registered_urls, st.lists(st.sampled_from(DOCUMENTS), max_size=3)
)


def _variant(url: str, how: int) -> str:
    """Ways a writer misspells a URL it did retrieve."""
    return [
        url,
        url + "/",
        url.replace("https://", "HTTPS://"),
        url + ("&" if "?" in url else "?") + "utm_source=news",
        url[: max(12, len(url) - 3)],
        url + "#frag",
    ][how]


@st.composite
def source_lines(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 6))
    if kind <= 1:
        url = f"https://{draw(st.sampled_from(HOSTS))}{draw(st.sampled_from(PATHS))}"
        return f"Title: {_variant(url, draw(st.integers(0, 5)))}"
    if kind == 2:
        return f"Doc: {draw(st.sampled_from([*DOCUMENTS, 'missing.pdf', 'Guide.PDF p. 3']))}"
    if kind == 3:
        return "A remembered book"
    if kind == 4:
        return "Fake - https://invented.example/paper"
    return "Unsafe: " + draw(
        st.sampled_from(
            ["https://bit.ly/x", "http://10.0.0.1/a", "javascript:alert(1)", "https://x.org/a..."]
        )
    )


@st.composite
def reports(draw: st.DrawFn, min_entries: int = 0) -> str:
    entries = draw(st.lists(source_lines(), min_size=min_entries, max_size=12))
    count = len(entries)
    sentences = []
    for _ in range(draw(st.integers(0, 6))):
        words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)))
        numbers = draw(st.lists(st.integers(1, count + 2), max_size=3))
        marker = f" [{', '.join(map(str, numbers))}]" if numbers else ""
        sentences.append(f"{words}{marker}{draw(st.sampled_from(['.', ',', ' and', '']))}")
    heading = draw(st.sampled_from(["## Sources", "**References**", "Reference List"]))
    style = draw(st.sampled_from(["[{n}] ", "- [{n}] ", "{n}. "]))
    listing = "\n".join(style.format(n=n) + line for n, line in enumerate(entries, start=1))
    return " ".join(sentences) + (f"\n\n{heading}\n{listing}\n" if entries else "\n")


def _numbers_are_contiguous(text: str) -> bool:
    parsed = parse_report(text)
    numbers = [entry.number for entry in parsed.entries]
    if numbers != list(range(1, len(numbers) + 1)):
        return False
    cited = {n for m in find_inline_markers(parsed.body_text(), set(numbers)) for n in m.numbers}
    return cited <= set(numbers)


# Generated reports are large; 60 examples per property keep the suite's run time sane while
# still exploring markers, duplicates, unsafe links and renumbering in every run.
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(reports(), registries)
def test_no_output_url_is_absent_from_the_registry(report: str, registry: SourceRegistry) -> None:
    result = verify_citations(report, registry)
    if len(registry) == 0:
        assert result.verified_report == report
        return
    urls = [url for _, _, url in find_urls(result.verified_report)]
    assert all(url in registry for url in urls), urls
    for entry in parse_report(result.verified_report).entries:
        assert entry.locator in registry
    assert {c.source for c in result.valid_citations} <= {s.locator for s in registry.sources()}


@FAST
@given(reports(), registries)
def test_verifying_a_verified_report_changes_nothing(report: str, registry: SourceRegistry) -> None:
    once = verify_citations(report, registry)
    twice = verify_citations(once.verified_report, registry)
    assert twice.verified_report == once.verified_report
    assert twice.removed_citations == []
    assert (twice.status, twice.reason) == (once.status, once.reason)


# Numbering is closed up against a sources list; a draft without one keeps its markers.
@FAST
@given(reports(min_entries=1), registries)
def test_checked_reports_are_numbered_contiguously_from_one(
    report: str, registry: SourceRegistry
) -> None:
    checked = check_report(report, registry)
    assert _numbers_are_contiguous(checked.report)
    if len(registry):
        assert all(e.locator in registry for e in parse_report(checked.report).entries)


@FAST
@given(reports(min_entries=1))
def test_sanitized_reports_are_numbered_contiguously_and_stable(report: str) -> None:
    once = sanitize_report(report).sanitized_report
    assert _numbers_are_contiguous(once)
    assert sanitize_report(once).sanitized_report == once


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]{2,}", text))


@FAST
@given(reports())
def test_sanitizing_never_adds_text(report: str) -> None:
    sanitized = sanitize_report(report).sanitized_report
    assert len(sanitized) <= len(report)
    assert _words(sanitized) <= _words(report)


# Fragments of reports, including malformed ones, shuffled into arbitrary text.
FRAGMENTS = [
    "alpha", "\n", "\n\n", "[1]", "[2]", "[^1]", "[1, 2]", "[3-4]", ".", ",", "(", ")", "`",
    "```", "https://example.com/a", "https://bit.ly/x", "[t](https://example.com/b)",
    "<https://example.com/a>", "## Sources\n", "**References**\n", "[1] T: https://example.com/a\n",
    "[2] guide.pdf\n", "2. X https://q.org/z\n", "[^1]: Note https://example.com/b\n",
    "javascript:alert(1)", "<tool_call>", "[2024]", "Sources", "1) ", "- ",
]  # fmt: skip
FRAGMENT_REGISTRY = SourceRegistry.from_sources(
    ["https://example.com/a", "https://example.com/b?x=1"], ["guide.pdf"]
)


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(" ".join))
def test_arbitrary_text_keeps_every_guarantee(text: str) -> None:
    sanitized = sanitize_report(text).sanitized_report
    assert len(sanitized) <= len(text)
    assert _words(sanitized) <= _words(text)
    verified = verify_citations(text, FRAGMENT_REGISTRY).verified_report
    assert verify_citations(verified, FRAGMENT_REGISTRY).verified_report == verified
    assert all(e.locator in FRAGMENT_REGISTRY for e in parse_report(verified).entries)
    checked = check_report(text, FRAGMENT_REGISTRY).report
    assert sanitize_report(checked).sanitized_report == checked
