"""The passages a quick answer is written from: each result's best stretch, within a budget."""

from __future__ import annotations

from langchain_core.tools import StructuredTool

from engine.quick.retrieval import RESULT_PASSAGE_CHARS, focused, retrieve
from tests.unit.quick.quick_doubles import search_results

QUESTION = "What is the default autovacuum_naptime?"
FILLER = " ".join(f"Sentence {n} talks about table storage and page layout." for n in range(60))
FACT = "The default autovacuum_naptime is one minute (1min)."


def results(*passages: tuple[str, str, str]) -> str:
    return search_results(QUESTION, *passages)


def test_a_long_passage_shows_the_stretch_that_answers_the_question() -> None:
    long = ("Autovacuum", "runtime-config-autovacuum.html", f"{FILLER} {FACT}")
    short = ("Vacuum", "routine-vacuuming.html", "VACUUM reclaims storage.")

    shown = focused(results(long, short), QUESTION)

    first, second = shown.split("\n\n")[1:]
    assert first.startswith("[1] Autovacuum\nDocument: runtime-config-autovacuum.html\n")
    assert FACT in first
    assert len(first.split("\n", 2)[2]) <= RESULT_PASSAGE_CHARS
    # A passage within the limit is shown whole.
    assert second == "[2] Vacuum\nDocument: routine-vacuuming.html\nVACUUM reclaims storage."


def test_results_of_another_shape_are_left_as_they_are() -> None:
    assert focused("Search failed: timeout", QUESTION) == "Search failed: timeout"


async def test_every_result_gets_room_so_later_results_still_reach_the_prompt() -> None:
    # Five results of 3,000 chars each: shown whole, the first one alone would fill the
    # budget; cut to their best stretches, all five fit, each with its fact.
    facts = [f"Setting number{n} defaults to {n}0 seconds." for n in range(1, 6)]
    found = results(
        *(
            (f"Page {n}", f"page{n}.html", f"{FILLER[: 3000 - len(fact)]} {fact}")
            for n, fact in enumerate(facts, start=1)
        )
    )
    tool = StructuredTool.from_function(lambda query: found, name="search_web", description="s")

    shown = await retrieve("Which setting defaults to seconds?", tool, 4_000)

    assert len(shown) <= 4_000 + 200
    for n, fact in enumerate(facts, start=1):
        assert f"[{n}] Page {n}" in shown
        assert fact in shown
