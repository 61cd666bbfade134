"""The deterministic preprocessing pipeline and the text contract the model reads."""

from __future__ import annotations

import random
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from engine.tools.local_index import LocalHit
from engine.tools.preprocess import (
    MAX_PASSAGE_CHARS,
    SearchResult,
    best_passage,
    dedupe,
    format_results,
    normalize,
    preprocess,
    stable_sort,
)


def test_normalizes_every_provider_shape() -> None:
    exa_like = SimpleNamespace(
        url="https://a.example/x", title="A", text="Alpha text.", highlights=None, score=0.9
    )
    highlighted = SimpleNamespace(
        url="https://b.example/y",
        title="B",
        text="ignored",
        highlights=["One.", "Two."],
        score=None,
    )
    mapping = {"url": "https://c.example/z", "title": "C", "content": "Gamma.", "score": 3}
    local = LocalHit("guide.pdf, p.3", "Guide — page 3", "page 3", "Page three text.", 1.5)
    results = normalize(
        [exa_like, highlighted, mapping, local, "bare string result", "", None], "q"
    )
    assert [r.locator for r in results] == [
        "https://a.example/x",
        "https://b.example/y",
        "https://c.example/z",
        "guide.pdf, p.3",
        "",
    ]
    assert results[1].passage == "One. Two."
    assert results[2].passage == "Gamma." and results[2].score == 3.0
    assert results[3].document == "guide.pdf, p.3" and results[3].url is None
    assert results[4].passage == "bare string result"
    assert [r.rank for r in results] == [0, 1, 2, 3, 4]


def test_dedupes_by_url_then_by_fingerprint() -> None:
    results = [
        SearchResult("A", "first", url="https://Example.com/page#top"),
        SearchResult("A again", "second", url="https://example.com/page/"),
        SearchResult("Doc", "Same words, here!", document="a.html"),
        SearchResult("Doc", "same   WORDS here", document="a.html"),
        SearchResult("Doc", "same words here", document="b.html"),
        SearchResult("", "no locator at all"),
        SearchResult("", "No locator at all."),
    ]
    kept = dedupe(results)
    assert [(r.title, r.passage) for r in kept] == [
        ("A", "first"),
        ("Doc", "Same words, here!"),
        ("Doc", "same words here"),
        ("", "no locator at all"),
    ]


def test_sort_is_by_score_then_stable_keys() -> None:
    results = [
        SearchResult("b", "p", url="https://b.example/", score=1.0, rank=0),
        SearchResult("a", "p", url="https://a.example/", score=1.0, rank=0),
        SearchResult("top", "p", url="https://z.example/", score=5.0, rank=2),
        SearchResult("unscored", "p", url="https://u.example/", score=None, rank=1),
    ]
    ordered = stable_sort(results)
    assert [r.title for r in ordered] == ["top", "a", "b", "unscored"]
    shuffled = results[:]
    random.Random(7).shuffle(shuffled)
    assert stable_sort(shuffled) == ordered


def test_preprocess_truncates_and_counts() -> None:
    raw = [
        {"url": f"https://site{i % 5}.example/", "title": f"T{i}", "text": "x", "score": float(i)}
        for i in range(12)
    ]
    outcome = preprocess(raw, "query", limit=3)
    assert outcome.results_before == 12
    assert outcome.duplicates_removed == 7
    # The first result per URL survives (T0..T4), then the highest scores win.
    assert [r.title for r in outcome.results] == ["T4", "T3", "T2"]


def test_best_passage_picks_matching_sentences_within_limit() -> None:
    filler = "Unrelated filler sentence about gardening. " * 60
    text = filler + "Task cancellation raises CancelledError inside the task. " + filler
    passage = best_passage(text, "how is task cancellation done")
    assert passage.startswith("Task cancellation raises CancelledError")
    assert len(passage) <= MAX_PASSAGE_CHARS


def test_format_matches_the_contract() -> None:
    results = [
        SearchResult("Page", "Web passage.", url="https://example.org/page"),
        SearchResult("Coroutines and Tasks", "Local passage.", document="asyncio-task.html"),
    ]
    assert format_results("asyncio  cancel\nquery", results) == (
        'Search results for "asyncio cancel query":\n'
        "\n"
        "[1] Page\n"
        "URL: https://example.org/page\n"
        "Web passage.\n"
        "\n"
        "[2] Coroutines and Tasks\n"
        "Document: asyncio-task.html\n"
        "Local passage."
    )


def test_format_when_nothing_found() -> None:
    assert format_results("nothing here", []) == 'No results for "nothing here".'


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["https://a.example/", "https://b.example/", None]),
            st.text(max_size=30),
            st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
        ),
        max_size=20,
    ),
    st.integers(min_value=0, max_value=10),
)
def test_pipeline_is_deterministic_and_bounded(items, limit) -> None:
    raw = [{"url": url, "title": "t", "text": text, "score": score} for url, text, score in items]
    first = preprocess(raw, "query", limit)
    second = preprocess(list(raw), "query", limit)
    assert first == second
    assert len(first.results) <= limit
    urls = [r.url for r in first.results if r.url]
    assert len(urls) == len(set(urls))
