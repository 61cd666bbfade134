"""The offline model's policy: which role it plays, decided from what it is given.

`respond(messages, tools, task=..., structured=None)` is the whole decision, pure and
deterministic. The structured schema asked for and the tools bound say which role a call is;
the task the node handed over with the call (engine.model_task) carries the role's inputs; the
conversation says what was already done. The chat model (engine/models/offline/model.py) and
the OpenAI-compatible test server both call it, so a run through `ChatOpenAI` and a run with
the model in-process take the same steps.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from engine.model_task import ModelRole, ModelTask
from engine.models.offline.conversation import Conversation, ToolSpec, tool_specs
from engine.models.offline.plan import (
    brief_for,
    clarifying_question,
    needs_clarification,
    plan_for,
    route_for,
    subject_of,
)
from engine.models.offline.reply import OfflineReply, make_calls
from engine.models.offline.research import (
    answer_from_tools,
    research_turn,
    supervisor_turn,
    topic_of,
)
from engine.models.offline.revision import revise_plan
from engine.models.offline.section_writer import section_claims
from engine.models.offline.text import quotable, split_sentences
from engine.schemas import ResearchPlan

STRUCTURED_SCHEMAS = (
    "ClarifyWithUser",
    "ResearchBrief",
    "ResearchPlan",
    "RouteDecision",
    "SectionDraft",
)
_SCHEMA_ROLES: dict[str, ModelRole] = {
    "ClarifyWithUser": "clarify",
    "ResearchBrief": "brief",
    "ResearchPlan": "plan",
    "RouteDecision": "route",
    "SectionDraft": "section",
}
_RESEARCH_TOOLS = {"search_web", "fetch_url"}


def structured_target(
    tools: list[ToolSpec], tool_choice: Any = None, ls_format: Any = None
) -> str | None:
    """The schema a structured-output call wants filled, if this is one."""
    if isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name") or tool_choice.get("name")
        if name in STRUCTURED_SCHEMAS:
            return str(name)
    if isinstance(tool_choice, str) and tool_choice in STRUCTURED_SCHEMAS:
        return tool_choice
    names = [tool.name for tool in tools]
    if len(names) == 1 and names[0] in STRUCTURED_SCHEMAS:
        return names[0]
    if isinstance(ls_format, dict):
        schema = ls_format.get("schema")
        name = getattr(schema, "__name__", None)
        if name in STRUCTURED_SCHEMAS:
            return str(name)
    return None


def structured_args(
    schema: str, conversation: Conversation, task: ModelTask | None = None
) -> dict[str, Any]:
    """Arguments that fill one of the graph's structured schemas, from the call's task."""
    task = task or ModelTask(role=_SCHEMA_ROLES[schema])
    if schema == "ResearchPlan":
        return _plan(task).model_dump()
    question = task.question
    if schema == "ClarifyWithUser":
        # Asked already when the conversation holds a turn after the question.
        asked = conversation.ai_turns > 0 or len(conversation.human_texts) > 1
        if needs_clarification(question, already_asked=asked):
            return {
                "need_clarification": True,
                "question": clarifying_question(question),
                "verification": "",
            }
        return {
            "need_clarification": False,
            "question": "",
            "verification": f"I will research: {question}",
        }
    if schema == "ResearchBrief":
        return {"research_brief": brief_for(question)}
    if schema == "RouteDecision":
        mode, reason = route_for(question)
        return {"mode": mode, "reason": reason}
    payload = task.section
    return section_claims(payload) if payload is not None else {"claims": []}


def _plan(task: ModelTask) -> ResearchPlan:
    """The plan under review revised by the person's feedback, else a new plan."""
    question = task.question
    if task.plan is not None and task.feedback:
        return revise_plan(task.plan, task.feedback, subject_of(question) or question)
    return plan_for(question, task.search_results, feedback=task.feedback)


def _short_reply(conversation: Conversation) -> OfflineReply:
    """Anything else: the first quotable sentences of the newest human message."""
    texts = conversation.human_texts or [conversation.all_text]
    sentences = [s for s in split_sentences(texts[-1]) if quotable(s)][:3]
    content = " ".join(sentences) or " ".join(texts[-1].split()[:40])
    return OfflineReply(content=content, role="reply")


def respond(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]] | None = None,
    *,
    task: ModelTask | None = None,
    structured: str | None = None,
    tool_choice: Any = None,
    ls_format: Any = None,
) -> OfflineReply:
    """The offline model's next turn for this conversation and these bound tools.

    `task` is the role and inputs the calling node handed over (engine.model_task).
    """
    conversation = Conversation(messages)
    specs = tool_specs(tools)
    schema = structured or structured_target(specs, tool_choice, ls_format)
    if schema is not None:
        args = structured_args(schema, conversation, task)
        if structured is not None:
            # JSON-schema structured output (response_format): the arguments are the content.
            return OfflineReply(content=json.dumps(args), role=schema)
        return OfflineReply(
            tool_calls=make_calls(conversation.ai_turns, [(schema, args)]), role=schema
        )
    # The bound tools say which loop the call is a turn of; the task says what it is about.
    names = {spec.name for spec in specs}
    if "ConductResearch" in names:
        return supervisor_turn(conversation, specs, task or ModelTask(role="supervisor"))
    task = task or ModelTask(role="researcher")
    topic = topic_of(task)
    if names & _RESEARCH_TOOLS:
        return research_turn(conversation, specs, topic, can_call=not task.answer_now)
    if conversation.tool_outputs():
        return answer_from_tools(conversation, topic)
    return _short_reply(conversation)


def to_ai_message(reply: OfflineReply) -> AIMessage:
    """The reply as a LangChain message, tool calls included."""
    return AIMessage(
        content=reply.content,
        tool_calls=[
            {"name": call.name, "args": call.args, "id": call.id, "type": "tool_call"}
            for call in reply.tool_calls
        ],
    )
