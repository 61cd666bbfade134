"""The supervisor role: one dispatch per track, completion, gate rejections, skipped calls."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from engine.model_task import ModelTask, task_config
from engine.models.offline import OfflineChatModel
from engine.models.offline.plan import plan_for
from engine.models.offline.research import MAX_FOLLOW_UP_ROUNDS
from engine.prompt_blocks import format_plan
from engine.schemas import ConductResearch, ResearchComplete

PLAN = plan_for("How are asyncio tasks cancelled?")


def _start() -> list[BaseMessage]:
    return [SystemMessage("You are the lead research supervisor."), HumanMessage(format_plan(PLAN))]


def _researched(messages: list[BaseMessage]) -> list[str]:
    """What the engine would say ran: every ConductResearch call not answered as skipped."""
    conduct = {
        c["id"]
        for m in messages
        if isinstance(m, AIMessage)
        for c in m.tool_calls
        if c["name"] == "ConductResearch"
    }
    return [
        m.tool_call_id
        for m in messages
        if isinstance(m, ToolMessage)
        and m.tool_call_id in conduct
        and not str(m.content).startswith("Skipped")
    ]


async def _turn(messages: list[BaseMessage], task: ModelTask | None = None) -> AIMessage:
    model = OfflineChatModel().bind_tools([ConductResearch, ResearchComplete])
    task = task or ModelTask(
        role="supervisor",
        question="How are asyncio tasks cancelled?",
        plan=PLAN,
        researched_calls=_researched(messages),
    )
    reply = await model.ainvoke(messages, task_config(task))
    assert isinstance(reply, AIMessage)
    return reply


def _answer_all(reply: AIMessage, text: str = "Findings: tasks are cancelled. [1]") -> list:
    return [reply, *(ToolMessage(text, tool_call_id=call["id"]) for call in reply.tool_calls)]


async def test_dispatches_one_unit_per_track_carrying_its_queries() -> None:
    reply = await _turn(_start())
    topics = [call["args"]["research_topic"] for call in reply.tool_calls]
    assert [call["name"] for call in reply.tool_calls] == ["ConductResearch"] * len(PLAN.tracks)
    for track, topic in zip(PLAN.tracks, topics, strict=True):
        assert f"Research track: {track.title}" in topic
        assert "Queries: " + " | ".join(track.queries) in topic
    assert len({call["id"] for call in reply.tool_calls}) == len(topics)


async def test_completes_once_every_track_has_an_answer() -> None:
    messages = _start()
    messages += _answer_all(await _turn(messages))
    reply = await _turn(messages)
    assert [call["name"] for call in reply.tool_calls] == ["ResearchComplete"]


async def test_skipped_units_are_dispatched_again() -> None:
    messages = _start()
    first = await _turn(messages)
    messages.append(first)
    for index, call in enumerate(first.tool_calls):
        text = "Findings. [1]" if index < 2 else "Skipped: over the concurrency limit of 2."
        messages.append(ToolMessage(text, tool_call_id=call["id"]))
    second = await _turn(messages)
    again = [call["args"]["research_topic"] for call in second.tool_calls]
    expected = [call["args"]["research_topic"] for call in first.tool_calls[2:]]
    assert again == expected


async def test_gate_rejection_brings_broadened_follow_ups_then_stops() -> None:
    messages = _start()
    messages += _answer_all(await _turn(messages))
    seen_queries: set[str] = {q for t in PLAN.tracks for q in t.queries}
    for round_number in range(1, MAX_FOLLOW_UP_ROUNDS + 1):
        complete = await _turn(messages)
        assert complete.tool_calls[0]["name"] == "ResearchComplete"
        messages += [
            complete,
            ToolMessage(
                "[ResearchComplete rejected: 2 evidence records, 5 required]",
                tool_call_id=complete.tool_calls[0]["id"],
            ),
        ]
        follow = await _turn(messages)
        topics = [call["args"]["research_topic"] for call in follow.tool_calls]
        assert 1 <= len(topics) <= len(PLAN.tracks)
        assert all(f"(follow-up {round_number})" in topic for topic in topics)
        queries = {
            q
            for topic in topics
            for line in topic.splitlines()
            if line.startswith("Queries: ")
            for q in line.removeprefix("Queries: ").split(" | ")
        }
        assert queries and not queries & seen_queries  # broadened, never repeated
        seen_queries |= queries
        messages += _answer_all(follow)
    complete = await _turn(messages)
    messages += [
        complete,
        ToolMessage(
            "[ResearchComplete rejected: still short]", tool_call_id=complete.tool_calls[0]["id"]
        ),
    ]
    final = await _turn(messages)
    assert final.tool_calls == [] and final.content


async def test_without_a_plan_the_question_is_one_track() -> None:
    question = "How are asyncio tasks cancelled?"
    reply = await _turn([HumanMessage(question)], ModelTask(role="supervisor", question=question))
    assert len(reply.tool_calls) == 1
    assert "Queries: asyncio tasks cancelled" in reply.tool_calls[0]["args"]["research_topic"]
