from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from engine.config import settings_from_mapping
from engine.quick.compaction import (
    compact_messages,
    context_char_budget,
    message_chars,
    request_chars,
    sources_in,
)

SYSTEM = SystemMessage(content="system prompt " * 20)
QUESTION = HumanMessage(content="What is new in the latest release?")


def tool_round(n: int, size: int) -> list[BaseMessage]:
    call_id = f"call_{n}"
    body = f"[1] Result {n}\nURL: https://site{n}.example/page\n" + "x" * size
    return [
        AIMessage(
            content="",
            tool_calls=[{"name": "search_web", "args": {"q": str(n)}, "id": call_id}],
        ),
        ToolMessage(content=body, tool_call_id=call_id, name="search_web"),
    ]


def conversation(rounds: int, size: int) -> list[BaseMessage]:
    messages: list[BaseMessage] = [SYSTEM, QUESTION]
    for n in range(rounds):
        messages += tool_round(n, size)
    return messages


def test_a_request_that_fits_is_returned_unchanged() -> None:
    messages = conversation(2, 100)
    assert compact_messages(messages, 100_000) == messages


def test_older_outputs_shrink_first_and_the_newest_stays_whole() -> None:
    messages = conversation(3, 5_000)
    compacted = compact_messages(messages, 9_000)

    assert request_chars(compacted) <= 9_000
    assert compacted[-1] == messages[-1]
    assert compacted[0] == SYSTEM and compacted[1] == QUESTION
    for index in (3, 5):
        assert len(compacted[index].text) < 1_000
        assert "https://site" in compacted[index].text
    # Tool messages are rewritten, never dropped: every call keeps its answer.
    assert [type(m) for m in compacted] == [type(m) for m in messages]
    assert [getattr(m, "tool_call_id", None) for m in compacted] == [
        getattr(m, "tool_call_id", None) for m in messages
    ]


def test_trimming_is_tried_before_condensing() -> None:
    messages = conversation(3, 5_000)
    budget = request_chars(messages) - 4_000  # one trim is enough
    compacted = compact_messages(messages, budget)
    assert "characters of older output trimmed" in compacted[3].text
    assert compacted[5] == messages[5]


def test_condensed_outputs_keep_their_sources() -> None:
    messages = conversation(4, 5_000)
    compacted = compact_messages(messages, 6_500)
    condensed = compacted[3].text
    assert condensed.startswith("[older tool output condensed")
    assert "https://site0.example/page" in condensed
    assert request_chars(compacted) <= 6_500


def test_the_newest_output_is_truncated_only_when_nothing_else_is_left() -> None:
    messages = conversation(2, 20_000)
    compacted = compact_messages(messages, 5_000)
    assert request_chars(compacted) <= 5_000
    assert "truncated" in compacted[-1].text
    assert compacted[-1].text.startswith("[1] Result 1")


def test_compaction_is_deterministic() -> None:
    messages = conversation(5, 3_000)
    assert compact_messages(messages, 7_000) == compact_messages(messages, 7_000)


def test_sources_include_urls_and_labelled_document_keys() -> None:
    text = "Title\nURL: https://a.example/x.\nDocument: handbook.md#3\nsee https://a.example/x"
    assert sources_in(text) == ["https://a.example/x", "handbook.md#3"]


def test_tool_call_arguments_count_toward_the_size() -> None:
    message = AIMessage(content="ab", tool_calls=[{"name": "t", "args": {"q": "xyz"}, "id": "1"}])
    assert message_chars(message) == 2 + 1 + len('{"q": "xyz"}')


def test_context_budget_follows_the_model_window() -> None:
    small = settings_from_mapping({"MODEL_MAX_INPUT_TOKENS": "10000"})
    large = settings_from_mapping({"MODEL_MAX_INPUT_TOKENS": "100000"})
    assert context_char_budget(large) == 10 * context_char_budget(small) > 0


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=30_000), min_size=1, max_size=8),
    slack=st.integers(min_value=0, max_value=40_000),
)
def test_any_chain_fits_when_the_budget_leaves_room_for_the_markers(
    sizes: list[int], slack: int
) -> None:
    messages: list[BaseMessage] = [SYSTEM, QUESTION]
    for n, size in enumerate(sizes):
        messages += tool_round(n, size)
    fixed = sum(message_chars(m) for m in messages if not isinstance(m, ToolMessage))
    budget = fixed + 200 * len(sizes) + slack

    compacted = compact_messages(messages, budget)

    assert request_chars(compacted) <= max(budget, 0)
    assert len(compacted) == len(messages)
    assert request_chars(compacted) <= request_chars(messages)
