"""A small model's findings without `[n]` still become evidence bound to what it was shown."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from engine.citations.registry import SourceRegistry
from engine.nodes.extraction import findings_from_messages

SEARCH = """Search results for "lru_cache default maxsize":

[1] functools — Higher-order functions
URL: https://docs.python.org/3/library/functools.html
If maxsize is set to None, the LRU feature is disabled. The default maxsize of lru_cache is 128.

[2] asyncio — Queues
URL: https://docs.python.org/3/library/asyncio-queue.html
A queue with maxsize zero is infinite."""


def _conversation(answer: str) -> list:
    call = {"name": "search_web", "args": {"query": "lru_cache"}, "id": "c1", "type": "tool_call"}
    return [
        HumanMessage(content="The default maxsize of functools.lru_cache"),
        AIMessage(content="", tool_calls=[call]),
        ToolMessage(content=SEARCH, tool_call_id="c1", name="search_web"),
        AIMessage(content=answer),
    ]


def _findings(answer: str):
    registry = SourceRegistry()
    registry.add_url("https://docs.python.org/3/library/functools.html", "functools")
    registry.add_url("https://docs.python.org/3/library/asyncio-queue.html", "asyncio — Queues")
    return findings_from_messages(
        _conversation(answer),
        registry,
        unit_id="unit-1",
        max_claims=5,
        max_sources_per_claim=3,
        max_bullets=10,
        word_budget=200,
    )


def test_an_uncited_sentence_the_passage_contains_is_bound_to_that_passage() -> None:
    findings = _findings("The default maxsize of lru_cache is 128 entries.")
    assert [r.source_urls for r in findings.records] == [
        ["https://docs.python.org/3/library/functools.html"]
    ]


def test_a_cited_number_without_a_sources_list_resolves_to_the_result_shown() -> None:
    findings = _findings("A queue whose maxsize is zero never fills up [2].")
    own = findings.records[0]
    assert own.claim == "A queue whose maxsize is zero never fills up."
    assert own.source_urls == ["https://docs.python.org/3/library/asyncio-queue.html"]
    # The rest are quoted from what it was shown, each bound to the result it came from.
    assert all(
        r.source_urls == ["https://docs.python.org/3/library/functools.html"]
        for r in findings.records[1:]
    )


def test_a_sentence_from_memory_never_becomes_evidence() -> None:
    findings = _findings("Threads were added to Python by Guido in a famous email.")
    # What the researcher was shown stands in for it, quoted; the memory does not.
    assert not any("Guido" in record.claim for record in findings.records)
    assert "The default maxsize of lru_cache is 128." in [r.claim for r in findings.records]
