"""A quick answer resting on one page quotes what another page the search found says."""

from __future__ import annotations

from engine.citations.extract import extract_cited_sentences
from engine.sourcing.related import RELATED_LEAD_IN, related_quote
from engine.sourcing.source_numbers import complete_references
from tests.unit.compat.test_corroboration import _catalog

QUESTION = "What is the default maxsize of functools.lru_cache?"
FUNCTOOLS = (
    "Decorator to wrap a function with a memoizing callable that saves up to the maxsize most "
    "recent calls. If maxsize is set to None, the LRU feature is disabled."
)
COLLECTIONS = (
    "OrderedDict objects keep their order. An OrderedDict would also be useful for "
    "implementing variants of functools.lru_cache() with a time bound."
)
QUEUES = "The maxsize argument of asyncio.Queue defaults to 0, which means it is unbounded."


def test_an_answer_citing_one_page_quotes_a_sentence_of_another_about_the_subject() -> None:
    catalog = _catalog(
        ("functools", "functools.html", FUNCTOOLS),
        ("asyncio queues", "asyncio-queue.html", QUEUES),
        ("collections", "collections.html", COLLECTIONS),
    )
    answer = "The default maxsize of functools.lru_cache is 128 [1]."

    quoted = complete_references(related_quote(answer, QUESTION, catalog), catalog)

    assert quoted.startswith(answer + "\n\n" + RELATED_LEAD_IN + "\n\n> An OrderedDict")
    assert "functools.lru_cache() with a time bound [3]." in quoted
    assert "asyncio.Queue" not in quoted  # a page about something else is never quoted
    # Both citations resolve to listed sources, so the verifier keeps them.
    cited = extract_cited_sentences(quoted)
    assert [sentence.sources for sentence in cited] == [["functools.html"], ["collections.html"]]


def test_nothing_is_added_when_no_other_page_names_the_subject() -> None:
    catalog = _catalog(
        ("functools", "functools.html", FUNCTOOLS),
        ("asyncio queues", "asyncio-queue.html", QUEUES),
    )
    answer = "The default maxsize of functools.lru_cache is 128 [1]."

    assert related_quote(answer, QUESTION, catalog) == answer


def test_an_answer_already_citing_two_pages_is_left_as_it_is() -> None:
    catalog = _catalog(
        ("functools", "functools.html", FUNCTOOLS),
        ("collections", "collections.html", COLLECTIONS),
        ("asyncio queues", "asyncio-queue.html", QUEUES),
    )
    answer = "The default maxsize of functools.lru_cache is 128 [1]. Queues default to 0 [3]."

    assert related_quote(answer, QUESTION, catalog) == answer


def test_a_listed_answer_gets_the_quoted_page_listed_too() -> None:
    catalog = _catalog(
        ("functools", "functools.html", FUNCTOOLS),
        ("collections", "collections.html", COLLECTIONS),
    )
    answer = (
        "The default maxsize of functools.lru_cache is 128 [1].\n\n## References\n"
        "[1] functools — functools.html\n"
    )

    quoted = related_quote(answer, QUESTION, catalog)

    assert quoted.endswith("[1] functools — functools.html\n[2] collections — collections.html\n")
    assert [s.sources for s in extract_cited_sentences(quoted)] == [
        ["functools.html"],
        ["collections.html"],
    ]
