"""URL normalization rules used for matching cited URLs."""

from __future__ import annotations

import pytest

from engine.citations.urls import has_scheme, normalize_url, url_scheme

NORMALIZATION_CASES = [
    # (written, normalized, rule)
    ("https://example.com/a?x=1&amp;y=2", "https://example.com/a?x=1&y=2", "entities unescaped"),
    ("HTTPS://Example.COM/Path", "https://example.com/Path", "scheme and host lowered, path kept"),
    ("https://example.com:8443/a", "https://example.com:8443/a", "port kept"),
    ("https://example.com/a%20b/c", "https://example.com/a b/c", "path decoded"),
    ("https://example.com/a/", "https://example.com/a", "trailing slash dropped"),
    ("https://example.com/", "https://example.com", "root slash dropped"),
    ("https://example.com/a#section-2", "https://example.com/a", "fragment dropped"),
    (
        "https://example.com/a?utm_source=x&utm_medium=y&id=3",
        "https://example.com/a?id=3",
        "utm_* dropped",
    ),
    ("https://example.com/a?ref=hn&source=tw&id=3", "https://example.com/a?id=3", "ref/source"),
    ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2", "query sorted"),
    ("  https://example.com/a  ", "https://example.com/a", "whitespace stripped"),
    ("guide.pdf, p.15", "guide.pdf, p.15", "not a URL: unchanged"),
]


@pytest.mark.parametrize(("written", "expected", "rule"), NORMALIZATION_CASES)
def test_normalize_url(written: str, expected: str, rule: str) -> None:
    assert normalize_url(written) == expected, rule


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("https://www.example.com/a", "https://example.com/a"),
        ("http://example.com/a", "https://example.com/a"),
        ("https://example.com:8080/a", "https://example.com/a"),
        ("https://example.com/A", "https://example.com/a"),
    ],
)
def test_distinct_urls_stay_distinct(left: str, right: str) -> None:
    assert normalize_url(left) != normalize_url(right)


@pytest.mark.parametrize(
    ("text", "scheme"),
    [
        ("https://x.org", "https"),
        ("JavaScript:alert(1)", "javascript"),
        ("data:text/html,hi", "data"),
        ("guide.pdf", ""),
        ("Title: thing", ""),
    ],
)
def test_scheme_detection(text: str, scheme: str) -> None:
    assert url_scheme(text) == scheme
    assert has_scheme(text) == bool(scheme)
