"""Sentence handling and the parsing of tool outputs the offline model relies on."""

from __future__ import annotations

from engine.models.offline.rank import Candidate, rank_candidates
from engine.models.offline.sources import (
    SourcePool,
    parse_fetch_result,
    parse_search_results,
)
from engine.models.offline.text import (
    quotable,
    split_sentences,
    term_stem,
    terms,
)

SEARCH = """Search results for "asyncio cancel":

[1] Coroutines and Tasks
URL: https://docs.example.org/asyncio-task.html
To cancel a running Task use the cancel() method.
It raises CancelledError.

[2] Timeouts
Document: timeouts.md
The timeout() context manager limits waiting.
[3] this line is passage text, not a result header"""


def test_search_results_parse_urls_and_document_keys() -> None:
    sources = parse_search_results(SEARCH)
    assert [(s.locator, s.title, s.is_url) for s in sources] == [
        ("https://docs.example.org/asyncio-task.html", "Coroutines and Tasks", True),
        ("timeouts.md", "Timeouts", False),
    ]
    assert "It raises CancelledError." in sources[0].text
    # A bracketed number not followed by a URL/Document line stays passage text.
    assert "[3] this line is passage text" in sources[1].text


def test_no_results_and_failed_fetch_yield_nothing() -> None:
    assert parse_search_results('No results for "x".') == []
    assert parse_fetch_result("Fetch failed: request timed out") is None


def test_fetch_result_merges_into_the_searched_source() -> None:
    pool = SourcePool()
    pool.add_tool_output("search_web", SEARCH)
    pool.add_tool_output(
        "fetch_url",
        "Fetched: https://docs.example.org/asyncio-task.html\nTitle: Tasks page\n\nFull text.",
    )
    merged = pool.get("https://docs.example.org/asyncio-task.html")
    assert merged is not None and merged.fetched
    assert merged.title == "Tasks page"
    assert merged.passages[-1] == "Full text."
    assert len(pool) == 2


def test_split_sentences_respects_lines_and_stops() -> None:
    text = "First sentence here. Second one follows!\n\n- A bullet item\nstill bullet."
    assert split_sentences(text) == [
        "First sentence here.",
        "Second one follows!",
        "- A bullet item still bullet.",
    ]


def test_quotable_rejects_markup_citations_and_fragments() -> None:
    assert quotable("To cancel a running Task use the cancel() method of the task.")
    assert quotable("Calling cancel will cause the Task to throw a CancelledError exception.")
    assert not quotable("Too short.")
    assert not quotable("Tasks are cancelled by the loop when asked to stop [1].")
    assert not quotable("See https://example.org for everything about it in detail.")
    assert not quotable("lower-case start is probably a fragment of something else.")


def test_stemming_joins_inflections() -> None:
    assert term_stem("cancelled") == term_stem("cancel") == term_stem("cancellation") == "cancel"
    assert term_stem("tasks") == "task"
    assert terms("How are asyncio tasks cancelled?") == {"asyncio", "task", "cancel"}


def test_ranking_is_deterministic_and_spreads_sources() -> None:
    candidates = [
        Candidate("Tasks are cancelled with cancel and raise CancelledError.", 0, 0),
        Candidate("Cancelled tasks raise CancelledError inside the coroutine.", 0, 1),
        Candidate("Cancel tasks carefully because cancelled tasks raise errors.", 0, 2),
        Candidate("A task that is cancelled stops at its next await point.", 1, 0),
        Candidate("Event loops run callbacks and perform network operations.", 2, 0),
    ]
    first = rank_candidates(candidates, "asyncio tasks cancelled", limit=3)
    second = rank_candidates(list(candidates), "asyncio tasks cancelled", limit=3)
    assert first == second
    # At most two from source 0 while others match; the unrelated sentence never ranks.
    assert [c.source_index for c in first].count(0) == 2
    assert any(c.source_index == 1 for c in first)
    assert all(c.source_index != 2 for c in first)
