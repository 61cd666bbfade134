"""The quick path numbers sources once per run and cites what small models leave uncited."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from engine.sourcing.attribution import attribute_uncited
from engine.sourcing.source_numbers import (
    SourceCatalog,
    catalog_of,
    complete_references,
    renumber,
)


def _results(*blocks: tuple[str, str, str]) -> str:
    body = [
        f"[{n}] {title}\nDocument: {key}\n{passage}"
        for n, (title, key, passage) in enumerate(blocks, 1)
    ]
    return 'Search results for "q":\n\n' + "\n\n".join(body)


CANCEL = (
    "Tasks — Cancellation",
    "asyncio-task.html",
    "When a task is cancelled, asyncio.CancelledError is raised in the task at the next "
    "opportunity.",
)
QUEUE = ("Queues", "asyncio-queue.html", "Queues are first in, first out.")
LOCKS = ("Locks", "asyncio-sync.html", "A lock guards a shared resource.")


def test_a_second_search_continues_the_numbering_and_reuses_known_sources() -> None:
    first = renumber([ToolMessage(_results(CANCEL, QUEUE), tool_call_id="a")], SourceCatalog({}))
    catalog = catalog_of(first)
    second = renumber([ToolMessage(_results(QUEUE, LOCKS), tool_call_id="b")], catalog)
    text = second[0].content
    assert "[2] Queues" in text and "[3] Locks" in text and "[1] Queues" not in text
    assert catalog_of([*first, *second]).entries[3] == ("Locks", "asyncio-sync.html")


def test_an_uncited_answer_gets_the_number_of_the_passage_it_restates() -> None:
    catalog = catalog_of([ToolMessage(_results(CANCEL, QUEUE), tool_call_id="a")])
    answer = (
        "A cancelled task sees asyncio.CancelledError raised at the next opportunity. "
        "Pizza is tasty."
    )
    cited = complete_references(attribute_uncited(answer, catalog), catalog)
    assert "opportunity [1]." in cited
    assert "Pizza is tasty." in cited and "tasty [" not in cited
    assert cited.rstrip().endswith("[1] Tasks — Cancellation — asyncio-task.html")


def test_an_answer_the_model_cited_is_not_touched_and_invented_references_are_replaced() -> None:
    catalog = catalog_of([ToolMessage(_results(CANCEL, QUEUE), tool_call_id="a")])
    answer = "Queues are FIFO [2].\n\n## References\n[2] Python docs (from memory)"
    assert attribute_uncited(answer, catalog) == answer
    completed = complete_references(answer, catalog)
    assert "from memory" not in completed
    assert completed.rstrip().endswith("[2] Queues — asyncio-queue.html")


def test_uncited_sentences_after_a_cited_one_are_attributed_to_their_passage() -> None:
    catalog = catalog_of([ToolMessage(_results(CANCEL, QUEUE, LOCKS), tool_call_id="a")])
    answer = (
        "Queues are first in, first out [2]. "
        "When a task is cancelled, asyncio.CancelledError is raised at the next opportunity. "
        "Pizza is tasty."
    )
    cited = attribute_uncited(answer, catalog)
    assert "first out [2]." in cited  # the model's own marker is kept, not doubled
    assert cited.count("[2]") == 1
    assert "next opportunity [1]." in cited
    assert "Pizza is tasty." in cited and "tasty [" not in cited
