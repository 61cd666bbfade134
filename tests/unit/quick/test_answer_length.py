"""A quick answer from the passages ends once it has said a sentence more than was asked.

Seen on the local 1.5B model over the Git manual: answers asked for in one or two sentences
went on to the neighbouring options and other pages (124 completion tokens a question against
the retrieve-then-answer script's 58), and the time went with them.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from engine.config import settings_from_mapping
from engine.quick.answer_length import ANSWER_SENTENCES, either, first_sentences, said_enough
from engine.quick.graph import MARKER_NOTICE, build_quick_graph, final_answer
from tests.unit.quick.quick_doubles import RecordingChatModel, calls_message, search
from tests.unit.quick.test_copy_stopped_early import QUESTION, search_tool

RAMBLING = (
    "It was called MaxClients before version 2.3.13 [1]. The directive limits the number of "
    "simultaneous requests [1]. It counts connections in the event MPM [1]. The Redirect "
    "directive maps an old URL into a new one [2]. Clients refetch from the new place [2]."
)


def test_the_watch_fires_once_a_sentence_beyond_the_limit_has_begun() -> None:
    watch = said_enough(2)

    assert not watch("It was MaxClients [1]. Then it was renamed")
    assert not watch("It was MaxClients [1]. Then it was renamed [1].")
    assert watch("It was MaxClients [1]. Then it was renamed [1]. The")
    # Version numbers and abbreviations are not sentence ends.
    assert not watch("It was MaxClients before 2.3.13, e.g. in 2.2 [1]. Later")


def test_a_reply_still_reasoning_is_not_ended() -> None:
    watch = said_enough(2)
    thinking = "<think>The user asks about MaxClients. I recall a rename. Let me check"
    assert not watch(thinking)
    answered = f"{thinking}.</think>It was MaxClients [1]. Then it was renamed [1]. The"
    assert watch(answered)
    assert not watch(answered.removesuffix(" Then it was renamed [1]. The"))


def test_breaks_inside_a_code_block_neither_count_nor_cut() -> None:
    text = (
        "Set it like this [1]:\n```\nSET x = 0. Then Y. Then Z.\n```\nIt applies at once [1]. More"
    )

    assert not said_enough(2)(text.removesuffix(" More"))
    assert first_sentences(text, 1) == text.removesuffix(" More")


def test_an_answer_is_cut_back_to_whole_sentences() -> None:
    assert first_sentences(RAMBLING, 2) == (
        "It was called MaxClients before version 2.3.13 [1]. The directive limits the number "
        "of simultaneous requests [1]."
    )
    assert first_sentences("One sentence [1].", 2) == "One sentence [1]."


def test_either_fires_when_one_watch_does() -> None:
    assert either(None, None) is None
    watch = either(None, lambda text: "copy" in text, said_enough(1))
    assert watch is not None
    assert watch("a copy") and watch("One. Two") and not watch("One")


async def test_the_answer_from_the_passages_keeps_only_its_first_sentences() -> None:
    # The engine searched first: the model's one call is the answer from the passages.
    model = RecordingChatModel.sequence([RAMBLING])
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))

    answer = final_answer(await graph.ainvoke({"messages": [HumanMessage(QUESTION)]}))

    body = answer.split("##")[0]
    assert body.startswith("It was called MaxClients before version 2.3.13 [1].")
    assert "It counts connections in the event MPM" in body
    assert "Redirect" not in body and "refetch" not in body
    assert ANSWER_SENTENCES == 3
    assert len(model.calls) == 1 and not model.calls[0].bound_tools


async def test_an_answer_after_a_search_of_its_own_is_not_cut() -> None:
    # Asked after tool results for two to five sentences: not the short answer.
    model = RecordingChatModel.sequence([calls_message(search(QUESTION)), RAMBLING])
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))

    answer = final_answer(await graph.ainvoke({"messages": [HumanMessage(QUESTION)]}))

    assert "Redirect directive" in answer.split("##")[0]


MARKER_FOR_FACT = "The old name of MaxRequestWorkers is [1]."
NAMED = "It was called MaxClients before version 2.3.13 [1]."


async def _answer(replies: list[object]) -> tuple[str, RecordingChatModel]:
    model = RecordingChatModel.sequence(replies)
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))
    return final_answer(await graph.ainvoke({"messages": [HumanMessage(QUESTION)]})), model


async def test_a_passage_number_written_for_the_fact_is_asked_again_after_the_same_request() -> (
    None
):
    answer, model = await _answer([MARKER_FOR_FACT, NAMED])

    assert answer.startswith(NAMED)
    first, again = model.calls
    assert MARKER_NOTICE in str(again.messages[-1].content)
    assert str(again.messages[-2].content) == MARKER_FOR_FACT
    # The first request unchanged before the reply and the notice: a prompt cache holds it.
    assert [m.content for m in again.messages[:-2]] == [m.content for m in first.messages]


async def test_a_second_passage_number_for_the_fact_is_not_asked_a_third_time() -> None:
    answer, model = await _answer([MARKER_FOR_FACT, MARKER_FOR_FACT])

    assert len(model.calls) == 2
    # What the sources say is quoted instead (engine.quick.answer).
    assert "MaxClients before version 2.3.13 [1]" in answer
    assert MARKER_FOR_FACT not in answer


async def test_an_empty_reply_to_the_notice_leaves_the_first_answer_to_the_fallback() -> None:
    answer, model = await _answer([MARKER_FOR_FACT, ""])

    assert len(model.calls) == 2
    assert "MaxClients before version 2.3.13 [1]" in answer
