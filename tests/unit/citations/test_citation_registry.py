"""The source registry: recording retrieved sources and matching cited ones."""

from __future__ import annotations

import json
import threading

import pytest

from engine.citations.registry import RegisteredSource, SourceRegistry, merge_registry_dicts

# (registered URLs, cited URL, expected registry URL or None, matching level exercised)
URL_LOOKUP_CASES = [
    (["https://example.com/a"], "https://example.com/a", "https://example.com/a", "1 exact"),
    (
        ["https://example.com/a?utm_source=feed&id=2"],
        "HTTPS://EXAMPLE.com/a/?id=2#top",
        "https://example.com/a?utm_source=feed&id=2",
        "1 normalized",
    ),
    (
        ["https://example.com/articles/how-sqlite-locks-work"],
        "https://example.com/articles/how-sqlite-lo",
        "https://example.com/articles/how-sqlite-locks-work",
        "2 truncation as written",
    ),
    (
        ["https://example.com/Articles/how-sqlite-locks-work"],
        "HTTPS://EXAMPLE.COM/Articles/how",
        "https://example.com/Articles/how-sqlite-locks-work",
        "3 prefix of the normalized form",
    ),
    (
        ["https://docs.python.org/3/library"],
        "https://docs.python.org/3/library/asyncio-task.html",
        "https://docs.python.org/3/library",
        "4 child path",
    ),
    (
        ["https://docs.python.org/3"],
        "https://docs.python.org/3/library/asyncio-task.html",
        None,
        "4 child path needs two registry segments",
    ),
    (
        ["https://search.example.org/results?q=gil&page=2&lang=en"],
        "https://search.example.org/results?lang=en&q=gil",
        "https://search.example.org/results?q=gil&page=2&lang=en",
        "5 query subset",
    ),
    (
        ["https://search.example.org/results?q=gil&page=2"],
        "https://search.example.org/results?q=gil&page=3",
        None,
        "5 a differing value is no subset",
    ),
    (["https://example.com/a"], "https://www.example.com/a", None, "www. is not equal"),
    (["https://example.com/a"], "http://example.com/a", None, "http is not https"),
    (["https://example.com:8443/a"], "https://example.com/a", None, "port matters"),
    (["https://example.com/a"], "https://other.org/a", None, "unknown host"),
    (["https://example.com/a"], "", None, "empty citation"),
]


@pytest.mark.parametrize(("registered", "cited", "expected", "level"), URL_LOOKUP_CASES)
def test_lookup_url_levels(
    registered: list[str], cited: str, expected: str | None, level: str
) -> None:
    registry = SourceRegistry.from_sources(registered)
    assert registry.lookup_url(cited) == expected, level


def test_ambiguous_level_falls_through_to_the_next() -> None:
    # Truncation and prefix are ambiguous (both URLs start with the citation) but only one
    # holds every cited query parameter with the same value, so level 5 decides.
    registry = SourceRegistry.from_sources(["https://x.org/r?q=a&page=2", "https://x.org/r?q=ab"])
    assert registry.lookup_url("https://x.org/r?q=a") == "https://x.org/r?q=a&page=2"
    registry = SourceRegistry.from_sources(
        ["https://example.com/guide/sqlite", "https://example.com/guide/sqlite-wal"]
    )
    # With both candidates equally plausible at every level, nothing is guessed.
    assert registry.lookup_url("https://example.com/guide/sql") is None


def test_normalized_equality_with_two_candidates_is_ambiguous() -> None:
    registry = SourceRegistry.from_sources(
        ["https://example.com/a?utm_source=x", "https://example.com/a?utm_source=y"]
    )
    assert registry.lookup_url("https://example.com/a") is None
    # The exact spelling is still unambiguous.
    assert registry.lookup_url("https://example.com/a?utm_source=y") == (
        "https://example.com/a?utm_source=y"
    )


@pytest.mark.parametrize(
    ("registered", "cited", "expected"),
    [
        (["guide.pdf"], "guide.pdf", "guide.pdf"),
        (["guide.pdf"], "GUIDE.PDF", "guide.pdf"),
        (["guide.pdf, p.15"], "guide.pdf, p.15", "guide.pdf, p.15"),
        (["guide.pdf, p.15"], "guide.pdf p. 16", "guide.pdf, p.15"),
        (["guide.pdf, p.15"], "guide.pdf", "guide.pdf, p.15"),
        (["guide.pdf"], "guide.pdf, page 3", "guide.pdf"),
        (["guide.pdf, p.3", "guide.pdf, p.15"], "Guide.pdf, pp. 15-16", "guide.pdf, p.15"),
        (["guide.pdf, p.3", "guide.pdf"], "guide.pdf, p.9", "guide.pdf"),
        (["notes.md"], "docs/notes.md", "notes.md"),
        (["asyncio-task.html"], "asyncio-task.html#page=2", "asyncio-task.html"),
        (["notes.md"], "other.md", None),
        (["notes.md"], "notes.markdown", None),
        (["guide.pdf"], "https://example.com/guide.pdf", None),
    ],
)
def test_lookup_document(registered: list[str], cited: str, expected: str | None) -> None:
    registry = SourceRegistry.from_sources(documents=registered)
    assert registry.lookup_document(cited) == expected


def test_lookup_returns_url_exactly_as_the_tool_returned_it() -> None:
    returned = "https://Example.com/Some%20Page/?utm_campaign=spring&id=7"
    registry = SourceRegistry()
    registry.add_url(returned)
    assert registry.lookup_url("https://example.com/Some Page?id=7") == returned
    assert registry.lookup("https://example.com/Some Page?id=7") == returned


def test_membership_length_order_and_titles() -> None:
    registry = SourceRegistry()
    assert registry.add_url("https://b.org/x", "B") is True
    assert registry.add_document("guide.pdf, p.2", "Guide") is True
    assert registry.add_url("https://a.org/y") is True
    assert registry.add_url("https://b.org/x", "Other title") is False
    assert registry.add_url("https://a.org/y", "A") is False  # fills a missing title
    assert len(registry) == 3
    assert "https://b.org/x" in registry
    assert "guide.pdf, p.2" in registry
    assert "https://c.org" not in registry
    assert [s.locator for s in registry.sources()] == [
        "https://b.org/x",
        "guide.pdf, p.2",
        "https://a.org/y",
    ]
    assert registry.title_for("https://b.org/x") == "B"
    assert registry.title_for("https://a.org/y/") == "A"
    assert registry.title_for("GUIDE.pdf") == "Guide"
    assert registry.title_for("https://unknown.org") is None
    assert registry.urls() == ["https://b.org/x", "https://a.org/y"]
    assert registry.documents() == ["guide.pdf, p.2"]


@pytest.mark.parametrize("bad", ["", "   "])
def test_empty_sources_are_rejected(bad: str) -> None:
    registry = SourceRegistry()
    with pytest.raises(ValueError, match="empty"):
        registry.add_url(bad)
    with pytest.raises(ValueError, match="empty"):
        registry.add_document(bad)


def test_round_trip_through_json() -> None:
    registry = SourceRegistry()
    registry.add_url("https://example.com/a", "A title")
    registry.add_document("guide.pdf, p.15")
    registry.add_url("https://example.com/b")
    data = json.loads(json.dumps(registry.to_dict()))
    restored = SourceRegistry.from_dict(data)
    assert restored == registry
    assert restored.sources()[0] == RegisteredSource("https://example.com/a", "url", "A title")
    assert restored.lookup_document("GUIDE.PDF") == "guide.pdf, p.15"
    assert SourceRegistry.from_dict(None) == SourceRegistry()


@pytest.mark.parametrize(
    "data",
    [
        {"sources": "nope"},
        {"sources": [{"kind": "url"}]},
        {"sources": [{"locator": "x", "kind": "video"}]},
    ],
)
def test_from_dict_rejects_malformed_data(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="registry data"):
        SourceRegistry.from_dict(data)


def test_merge_keeps_order_and_adds_only_new_sources() -> None:
    left = SourceRegistry.from_sources(["https://a.org", "https://b.org"])
    right = SourceRegistry.from_sources(["https://b.org", "https://c.org"], ["notes.md"])
    left.merge(right)
    assert [s.locator for s in left.sources()] == [
        "https://a.org",
        "https://b.org",
        "https://c.org",
        "notes.md",
    ]
    reduced = merge_registry_dicts(
        SourceRegistry.from_sources(["https://a.org"]).to_dict(),
        SourceRegistry.from_sources(["https://a.org", "https://z.org"]).to_dict(),
    )
    assert [entry["locator"] for entry in reduced["sources"]] == ["https://a.org", "https://z.org"]
    assert merge_registry_dicts(None, None) == SourceRegistry().to_dict()


def test_concurrent_adds_lose_nothing() -> None:
    registry = SourceRegistry()

    def add_many(worker: int) -> None:
        for n in range(200):
            registry.add_url(f"https://w{worker}.example.org/page/{n}")
            registry.lookup_url(f"https://w{worker}.example.org/page/{n // 2}")

    threads = [threading.Thread(target=add_many, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry) == 1600
    assert registry.lookup_url("https://w7.example.org/page/199") == (
        "https://w7.example.org/page/199"
    )
