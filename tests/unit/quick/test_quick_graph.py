from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from engine.config import Settings, settings_from_mapping
from engine.events import MetricRecorded
from engine.quick.answer import EMPTY_ANSWER
from engine.quick.budget import SYNTHESIS_ANCHOR, quick_recursion_limit
from engine.quick.graph import (
    BUDGET_METRIC,
    CITE_REMINDER,
    MALFORMED_CALL_NOTICE,
    QUICK_TURN_TOKENS,
    SEARCH_MORE_NOTICE,
    TOOL_FAILURE_MESSAGE,
    build_quick_graph,
    final_answer,
)
from engine.quick.retrieval import ANSWER_SHAPE, passage_budget
from tests.unit.quick.quick_doubles import (
    FakeTools,
    RecordingChatModel,
    calls_message,
    search,
)

ANSWER = "Python 3.13 was released in October 2024 [1].\n\n## References\n[1] https://example.org"
CLOCK = lambda: datetime(2031, 3, 14)  # noqa: E731


def quick_settings(**values: int) -> Settings:
    return settings_from_mapping({key.upper(): str(value) for key, value in values.items()})


def question(text: str = "When was Python 3.13 released?") -> dict[str, Any]:
    return {"messages": [HumanMessage(content=text)]}


def always_searching(messages: list[BaseMessage]) -> AIMessage:
    """A model that never stops asking for tools, even when none are bound."""
    return calls_message(search(f"query {len(messages)}"))


async def test_the_question_is_searched_first_and_answered_in_one_call() -> None:
    tools = FakeTools()
    model = RecordingChatModel.sequence([ANSWER])
    graph = build_quick_graph(model, tools.tools(), quick_settings(), clock=CLOCK)

    state = await graph.ainvoke(question())

    assert final_answer(state) == ANSWER
    # The engine's own search is not the model's: the model's tool budget is untouched.
    assert state["tool_iterations"] == 0
    assert state["llm_turns"] == 1
    assert tools.log == [("search_web", {"query": "When was Python 3.13 released?"})]
    # Answer first: the call that answers from the passages has no tools bound, as in a
    # retrieve-then-answer script.
    assert [call.bound_tools for call in model.calls] == [()]
    # Every quick turn is capped well below a role's output: a copied-back result list
    # cannot run on for minutes.
    assert [call.max_tokens for call in model.calls] == [QUICK_TURN_TOKENS]
    request = model.calls[0].messages
    assert isinstance(request[0], SystemMessage)
    assert "Current date: Friday, March 14, 2031" in request[0].text
    # The question, its passages and how to answer, in one user turn, last.
    assert isinstance(request[-1], HumanMessage)
    assert request[-1].text.startswith("Question: When was Python 3.13 released?")
    assert "URL: https://example.org/when-was-python-3.13-released?/1" in request[-1].text
    assert request[-1].text.endswith(ANSWER_SHAPE)
    assert not any(m.text == SYNTHESIS_ANCHOR for m in request)


async def test_after_a_search_of_its_own_the_model_is_reminded_to_cite() -> None:
    tools = FakeTools()
    model = RecordingChatModel.sequence([calls_message(search("python 3.13 release")), ANSWER])
    graph = build_quick_graph(model, tools.tools(), quick_settings(), clock=CLOCK)

    state = await graph.ainvoke(question())

    assert final_answer(state) == ANSWER
    assert state["tool_iterations"] == 1
    second_request = model.calls[1].messages
    # The tool result, then the engine's reminder to cite it, last where a model reads last.
    assert isinstance(second_request[-2], ToolMessage)
    assert "https://example.org/python-3.13-release/2" in second_request[-2].text
    assert isinstance(second_request[-1], HumanMessage)
    assert second_request[-1].text.endswith(CITE_REMINDER)
    assert second_request[-1].text.startswith("Question: ")


async def test_spent_budget_forces_a_tool_free_synthesis() -> None:
    tools = FakeTools()
    model = RecordingChatModel.replying(always_searching)
    graph = build_quick_graph(model, tools.tools(), quick_settings(max_tool_iterations=2))

    state = await graph.ainvoke(question())

    assert tools.count() == 2 + 1  # the model's two, and the question searched as asked
    assert len(model.calls) == 3
    synthesis = model.calls[-1]
    assert synthesis.bound_tools == ()
    assert isinstance(synthesis.messages[-1], HumanMessage)
    assert synthesis.messages[-1].text == SYNTHESIS_ANCHOR
    last = state["messages"][-1]
    # The model asked for a tool anyway; the call is discarded and the run ends.
    assert isinstance(last, AIMessage)
    assert last.tool_calls == []
    assert "tool_calls" not in last.additional_kwargs
    assert final_answer(state) == EMPTY_ANSWER
    assert state["tool_iterations"] == 2


async def test_parallel_calls_count_one_each_and_the_excess_is_dropped() -> None:
    tools = FakeTools()
    three = calls_message(search("a"), search("b"), search("c"))
    three_more = calls_message(search("d"), search("e"), search("f"))
    model = RecordingChatModel.sequence([three, three_more, ANSWER])
    graph = build_quick_graph(model, tools.tools(), quick_settings(max_tool_iterations=5))

    state = await graph.ainvoke(question())

    queries = [args["query"] for _, args in tools.log]
    assert queries == ["When was Python 3.13 released?", "a", "b", "c", "d", "e"]
    assert state["tool_iterations"] == 5
    second_reply = state["messages"][7]
    assert isinstance(second_reply, AIMessage)
    assert [call["args"]["query"] for call in second_reply.tool_calls] == ["d", "e"]
    assert model.calls[-1].bound_tools == ()
    assert model.calls[-1].messages[-1].text == SYNTHESIS_ANCHOR
    assert final_answer(state) == ANSWER


async def test_the_last_model_turn_is_the_synthesis_so_the_recursion_limit_holds() -> None:
    tools = FakeTools()
    model = RecordingChatModel.replying(always_searching)
    settings = quick_settings(max_llm_turns=4, max_tool_iterations=200)
    graph = build_quick_graph(model, tools.tools(), settings)
    assert graph.config is not None
    assert graph.config["recursion_limit"] == quick_recursion_limit(settings) == 18

    steps = [update async for update in graph.astream(question(), stream_mode="updates")]

    assert len(model.calls) == 4
    assert tools.count() == 3 + 1
    assert model.calls[-1].bound_tools == ()
    assert len(steps) == 8 <= quick_recursion_limit(settings)


async def test_the_recursion_limit_travels_with_the_graph_into_a_parent_node() -> None:
    tools = FakeTools()
    model = RecordingChatModel.replying(always_searching)
    settings = quick_settings(max_llm_turns=10, max_tool_iterations=50)
    quick_graph = build_quick_graph(model, tools.tools(), settings)

    class Parent(TypedDict):
        answer: str

    async def quick_research(_: Parent) -> dict[str, str]:
        result = await quick_graph.ainvoke(question())
        return {"answer": final_answer(result)}

    parent = StateGraph(Parent)
    parent.add_node("quick_research", quick_research)
    parent.add_edge(START, "quick_research")
    parent.add_edge("quick_research", END)
    # A parent limit far below the 19 steps the quick loop needs must not cut it short.
    result = await parent.compile().ainvoke({"answer": ""}, {"recursion_limit": 3})

    assert result["answer"] == EMPTY_ANSWER
    assert len(model.calls) == 10
    assert tools.count() == 9 + 1


async def test_requests_stay_under_the_context_size_and_keep_the_newest_output_whole() -> None:
    tools = FakeTools(result_chars=4_000)
    model = RecordingChatModel.sequence(
        [calls_message(search(f"topic {n}")) for n in range(4)] + [ANSWER]
    )
    graph = build_quick_graph(
        model, tools.tools(), quick_settings(max_tool_iterations=4), max_context_chars=9_000
    )

    state = await graph.ainvoke(question())

    from engine.quick.compaction import request_chars

    assert final_answer(state) == ANSWER
    sizes = [request_chars(call.messages) for call in model.calls]
    assert all(size <= 9_000 for size in sizes), sizes
    uncompacted = request_chars([model.calls[0].messages[0], *state["messages"][:-1]])
    assert uncompacted > 16_000
    last_request = model.calls[-1].messages
    tool_texts = [m.text for m in last_request if isinstance(m, ToolMessage)]
    newest = state["messages"][-2]
    assert isinstance(newest, ToolMessage)
    assert tool_texts[-1] == newest.text  # the newest output reaches the model whole
    # Older outputs are shortened but still name the sources the model may cite.
    # (The question, searched by the engine before the model spoke, is the tools' first call.)
    for n, text in enumerate(tool_texts[:-1]):
        assert len(text) < 4_000
        assert f"https://example.org/topic-{n}/{n + 2}" in text
    # The graph's state keeps every output of the model's own searches whole, and the
    # engine's first search within the passage budget the window allows.
    outputs = [m.text for m in state["messages"] if isinstance(m, ToolMessage)]
    assert [len(text) for text in outputs[1:]] == [4_000] * 4
    assert len(outputs[0]) == passage_budget(9_000)


async def test_a_failing_tool_reaches_the_model_as_a_generic_message() -> None:
    tools = FakeTools(fail_with=RuntimeError("upstream 10.1.2.3 said: key sk-secret rejected"))
    model = RecordingChatModel.sequence([calls_message(search("x")), ANSWER])
    graph = build_quick_graph(model, tools.tools(), quick_settings())

    state = await graph.ainvoke(question())

    tool_message = state["messages"][4]
    assert isinstance(tool_message, ToolMessage)
    assert tool_message.text == TOOL_FAILURE_MESSAGE
    assert "sk-secret" not in model.calls[1].messages[-1].text
    assert final_answer(state) == ANSWER


async def test_selected_data_sources_narrow_the_bound_tools() -> None:
    model = RecordingChatModel.sequence([ANSWER])
    graph = build_quick_graph(model, FakeTools().tools(), quick_settings())

    await graph.ainvoke({**question(), "data_sources": ["fetch_url"]})

    assert model.calls[0].bound_tools == ("fetch_url",)
    assert "## Query rewriting" not in model.calls[0].messages[0].text


async def test_state_context_reaches_the_prompt() -> None:
    # Fetch only: nothing is searched first, so the documents are listed to be read.
    model = RecordingChatModel.sequence([ANSWER])
    graph = build_quick_graph(
        model, FakeTools().tools(), quick_settings(), available_documents=["default.md"]
    )

    await graph.ainvoke(
        {
            **question(),
            "data_sources": ["fetch_url"],
            "available_documents": ["roadmap.md — 2031 roadmap"],
            "collection_name": "planning",
            "user_info": {"team": "platform"},
        }
    )

    prompt = model.calls[0].messages[0].text
    assert "- roadmap.md — 2031 roadmap" in prompt
    assert "default.md" not in prompt
    assert "Knowledge collection: planning" in prompt
    assert "- team: platform" in prompt


async def test_build_time_documents_are_listed_when_the_state_names_none() -> None:
    model = RecordingChatModel.sequence([ANSWER])
    graph = build_quick_graph(
        model, FakeTools().tools(), quick_settings(), available_documents=["default.md"]
    )
    await graph.ainvoke({**question(), "data_sources": ["fetch_url"]})
    assert "- default.md" in model.calls[0].messages[0].text


async def test_an_answer_citing_no_passage_gets_one_turn_with_the_tools() -> None:
    uncited = "Python 3.13 came out in 2024."
    model = RecordingChatModel.sequence([uncited, calls_message(search("python 3.13")), ANSWER])
    graph = build_quick_graph(model, FakeTools().tools(), quick_settings())

    state = await graph.ainvoke(question())

    assert final_answer(state) == ANSWER
    first, second, third = model.calls
    assert first.bound_tools == () and "search_web" not in first.messages[0].text
    # The tools (the reflection tool left out), and the notice where the model reads last.
    assert second.bound_tools == ("search_web", "fetch_url")
    assert second.messages[-1].text == SEARCH_MORE_NOTICE
    assert "To search for more, call search_web" in second.messages[0].text
    assert third.bound_tools == ("search_web", "fetch_url")
    assert state["tool_iterations"] == 1 and state["llm_turns"] == 3


async def test_a_tool_call_it_could_not_read_gets_another_turn() -> None:
    garbled = '<tool_call>{"name": "search_web", "arguments": {"query": </tool_call>'
    model = RecordingChatModel.sequence([calls_message(search("python")), garbled, ANSWER])
    graph = build_quick_graph(model, FakeTools().tools(), quick_settings())

    state = await graph.ainvoke(question())

    assert final_answer(state) == ANSWER
    assert model.calls[-1].messages[-1].text == MALFORMED_CALL_NOTICE


async def test_once_passages_are_given_the_documents_are_not_listed() -> None:
    model = RecordingChatModel.sequence(["Not in these passages.", ANSWER])
    graph = build_quick_graph(
        model, FakeTools().tools(), quick_settings(), available_documents=["default.md"]
    )

    await graph.ainvoke({**question(), "collection_name": "planning"})

    answering, searching = (call.messages[0].text for call in model.calls)
    assert "search_web" not in answering  # the answer-first call is offered no tools
    prompt = searching
    assert "default.md" not in prompt
    assert "Knowledge collection: planning" in prompt
    # The bound tools describe themselves; the prompt only says how to search for more.
    assert "## Tools" not in prompt and "## Query rewriting" not in prompt
    assert "To search for more, call search_web" in prompt


async def test_without_tools_the_model_answers_directly() -> None:
    model = RecordingChatModel.sequence([ANSWER])
    graph = build_quick_graph(model, [], quick_settings())

    state = await graph.ainvoke(question())

    assert final_answer(state) == ANSWER
    assert model.calls[0].bound_tools == ()
    assert model.calls[0].messages[-1].text != SYNTHESIS_ANCHOR


async def test_the_budget_metric_reports_what_the_run_spent() -> None:
    model = RecordingChatModel.replying(always_searching)
    graph = build_quick_graph(model, FakeTools().tools(), quick_settings(max_tool_iterations=1))

    events = [e async for e in graph.astream(question(), stream_mode="custom")]

    assert events == [
        MetricRecorded(
            name=BUDGET_METRIC,
            values={
                "tool_iterations": 1,
                "max_tool_iterations": 1,
                "llm_turns": 2,
                "max_llm_turns": 10,
                "synthesis_forced": True,
            },
        )
    ]
