"""A cited sentence must share content words with the passage it cites, or lose the marker."""

from __future__ import annotations

from engine.sourcing.source_numbers import SourceCatalog
from engine.sourcing.support import drop_unsupported

CATALOG = SourceCatalog(
    entries={
        1: ("functools — Higher-order functions", "functools.html"),
        2: ("Coroutines and Tasks", "asyncio-task.html"),
    },
    passages={
        1: "@functools.lru_cache(maxsize=128, typed=False) leaves maxsize at its default of 128.",
        2: "To cancel a running Task use the cancel() method. The task sees CancelledError.",
    },
)


def test_a_paraphrase_of_the_cited_passage_keeps_its_citation() -> None:
    answer = "The default maxsize of functools.lru_cache is 128 [1]."
    assert drop_unsupported(answer, CATALOG) == answer


def test_an_answer_from_memory_loses_the_citation_it_borrowed() -> None:
    answer = "The 1998 FIFA World Cup final was won by Brazil over Germany [1]."
    assert drop_unsupported(answer, CATALOG) == (
        "The 1998 FIFA World Cup final was won by Brazil over Germany."
    )


def test_only_the_unsupported_number_of_a_group_goes() -> None:
    answer = "Calling cancel() makes the task see CancelledError [1, 2]."
    assert drop_unsupported(answer, CATALOG) == (
        "Calling cancel() makes the task see CancelledError [2]."
    )


def test_an_answer_with_its_own_sources_list_is_left_to_the_verifier() -> None:
    answer = "Brazil won [1].\n\n## Sources\n[1] https://example.org/worldcup"
    assert drop_unsupported(answer, CATALOG) == answer


def test_a_marker_after_the_full_stop_is_checked_against_its_sentence() -> None:
    answer = "Brazil beat Germany on penalties in 1998. [1] Use cancel() to cancel a task. [2]"
    assert drop_unsupported(answer, CATALOG) == (
        "Brazil beat Germany on penalties in 1998. Use cancel() to cancel a task. [2]"
    )
