"""A quick answer that cites none of its retrieved sources is followed by what they say."""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool

from engine.config import settings_from_mapping
from engine.quick.answer import QUOTED_BESIDE_UNCITED
from engine.quick.graph import build_quick_graph, final_answer
from tests.unit.quick.quick_doubles import (
    RecordingChatModel,
    calls_message,
    passages_search,
    search,
)

GROUPBY = (
    "itertools — groupby",
    "itertools.html",
    "Make an iterator that returns consecutive keys and groups from the iterable. "
    "Generally, the iterable passed to groupby needs to already be sorted on the same key "
    "function.",
)
MATCH = (
    "Control flow — match statements",
    "tutorial-controlflow.html",
    "Most literals are compared by equality in a match statement.",
)


def search_tool() -> list[BaseTool]:
    return passages_search(GROUPBY, MATCH)


async def answer_to(question: str, reply: str) -> str:
    model = RecordingChatModel.sequence([calls_message(search(question)), reply])
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))
    state = await graph.ainvoke({"messages": [HumanMessage(question)]})
    return final_answer(state)


async def test_an_answer_from_memory_is_followed_by_the_sources_sentences_quoted() -> None:
    question = "What must be true of the input to itertools.groupby?"
    memory = "The input to groupby must contain at least two elements of one common type."

    answer = await answer_to(question, memory)

    assert answer.startswith(memory)
    assert QUOTED_BESIDE_UNCITED in answer
    quoted = answer.split(QUOTED_BESIDE_UNCITED, 1)[1]
    assert "needs to already be sorted on the same key function [1]." in quoted
    # Only the passage about what was asked is quoted, and what is quoted is listed.
    assert "match statement" not in quoted
    assert "[1] itertools — groupby" in quoted


async def test_no_quotes_when_no_result_is_about_the_question() -> None:
    question = "Who won the 1998 FIFA World Cup final?"
    memory = "France won the 1998 FIFA World Cup final against Brazil."

    answer = await answer_to(question, memory)

    assert QUOTED_BESIDE_UNCITED not in answer
    assert answer.startswith(memory)


async def test_a_cited_answer_gets_no_quotes() -> None:
    question = "What must be true of the input to itertools.groupby?"
    cited = "The iterable passed to groupby needs to already be sorted on the same key [1]."

    answer = await answer_to(question, cited)

    assert QUOTED_BESIDE_UNCITED not in answer


async def test_an_uncited_answer_that_restates_a_passage_is_answered_in_one_call() -> None:
    question = "What must be true of the input to itertools.groupby?"
    restated = "The iterable passed to groupby needs to already be sorted on the same key function."
    model = RecordingChatModel.sequence([restated])
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))

    state = await graph.ainvoke({"messages": [HumanMessage(question)]})

    # No turn with the tools: the answer came from the passages, and is cited to its own.
    assert len(model.calls) == 1 and model.calls[0].bound_tools == ()
    assert final_answer(state).startswith(f"{restated[:-1]} [1].")
