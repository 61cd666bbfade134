"""A researcher that searched but wrote no findings keeps what its results said."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from engine.citations.registry import SourceRegistry
from engine.nodes.extraction import findings_from_messages

RESULTS = (
    'Search results for "asyncio threads":\n\n'
    "[1] Developing with asyncio — Concurrency and Multithreading\n"
    "Document: asyncio-dev.html\n"
    "An event loop runs in a thread and executes all callbacks and Tasks in its thread. "
    "To schedule a coroutine object from a different OS thread, the "
    "run_coroutine_threadsafe() function should be used.\n\n"
    "[2] Queues\n"
    "Document: asyncio-queue.html\n"
    "asyncio queues are designed to be similar to classes of the queue module. "
    "Although asyncio queues are not thread-safe, they are designed to be used "
    "specifically in async/await code."
)


def _run(final: str) -> list[str]:
    registry = SourceRegistry.from_sources(documents=["asyncio-dev.html", "asyncio-queue.html"])
    messages = [
        HumanMessage("Concurrency with asyncio and threads: which thread runs the event loop?"),
        AIMessage("", tool_calls=[{"name": "search_web", "args": {"query": "q"}, "id": "c1"}]),
        ToolMessage(RESULTS, tool_call_id="c1"),
        AIMessage(final),
    ]
    findings = findings_from_messages(
        messages,
        registry,
        unit_id="unit-1",
        max_claims=3,
        max_sources_per_claim=2,
        max_bullets=10,
        word_budget=500,
    )
    return [f"{r.claim} <- {', '.join(r.source_urls)}" for r in findings.records]


def test_findings_are_quoted_from_the_results_when_the_researcher_wrote_none() -> None:
    records = _run("Sources: [1], [2]")
    assert records, "the results it was shown are not lost"
    assert len(records) <= 3
    assert any(
        record.startswith("An event loop runs in a thread and executes all callbacks")
        and record.endswith("<- asyncio-dev.html")
        for record in records
    )
    # Every quoted claim is a sentence of the result it is cited to, verbatim.
    for record in records:
        claim, source = record.rsplit(" <- ", 1)
        passage = RESULTS.split(f"Document: {source}\n", 1)[1].split("\n\n")[0]
        assert claim.rstrip(".").split(" [")[0] in passage


def test_a_researcher_with_its_own_cited_findings_is_not_overridden() -> None:
    records = _run("The event loop executes callbacks and Tasks in its own thread [1].")
    assert records == [
        "The event loop executes callbacks and Tasks in its own thread. <- asyncio-dev.html"
    ]
