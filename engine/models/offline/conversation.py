"""A read-only view of the conversation the offline model is given.

What the call is for (its role, the question, the plan) comes with the call as data
(engine.model_task); what happened in the conversation is read here: which tools are bound,
what was already called, what came back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from engine.messages import message_text


@dataclass(frozen=True)
class ToolSpec:
    """A bound tool, reduced to what the model needs: its name and argument names."""

    name: str
    parameters: dict[str, Any]

    def first_string_argument(self, preferred: tuple[str, ...]) -> str:
        """The argument to put text in: a preferred name if present, else the first string."""
        properties = self.parameters.get("properties") or {}
        for name in preferred:
            if name in properties:
                return name
        for name, schema in properties.items():
            if isinstance(schema, dict) and schema.get("type") == "string":
                return str(name)
        return preferred[0]


def tool_specs(tools: list[dict[str, Any]] | None) -> list[ToolSpec]:
    """Bound tools in OpenAI function format, as `bind_tools` and the chat API carry them."""
    specs: list[ToolSpec] = []
    for tool in tools or []:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        name = function.get("name")
        if isinstance(name, str) and name:
            specs.append(ToolSpec(name=name, parameters=dict(function.get("parameters") or {})))
    return specs


@dataclass(frozen=True)
class PastCall:
    """A tool call the model made earlier in this conversation, with its answer if any."""

    id: str
    name: str
    args: dict[str, Any]
    answer: str | None


class Conversation:
    """Questions the offline model asks of its input messages."""

    def __init__(self, messages: list[BaseMessage]) -> None:
        self.messages = messages

    @property
    def prompt_messages(self) -> list[BaseMessage]:
        """System and human messages: where the graph puts instructions and context."""
        return [m for m in self.messages if isinstance(m, SystemMessage | HumanMessage)]

    @property
    def prompt_text(self) -> str:
        return "\n\n".join(message_text(m) for m in self.prompt_messages)

    @property
    def all_text(self) -> str:
        return "\n\n".join(message_text(m) for m in self.messages)

    @property
    def human_texts(self) -> list[str]:
        return [message_text(m) for m in self.messages if isinstance(m, HumanMessage)]

    @property
    def ai_turns(self) -> int:
        return sum(isinstance(m, AIMessage) for m in self.messages)

    def past_calls(self) -> list[PastCall]:
        """Every tool call in earlier AI messages, in order, joined to its ToolMessage."""
        answers: dict[str, str] = {}
        for message in self.messages:
            if isinstance(message, ToolMessage):
                answers[message.tool_call_id] = message_text(message)
        calls: list[PastCall] = []
        for message in self.messages:
            if not isinstance(message, AIMessage):
                continue
            for call in message.tool_calls:
                call_id = call.get("id") or ""
                calls.append(
                    PastCall(
                        id=call_id,
                        name=call["name"],
                        args=dict(call.get("args") or {}),
                        answer=answers.get(call_id),
                    )
                )
        return calls

    def tool_outputs(self) -> list[tuple[str, str]]:
        """(tool name, content) of every ToolMessage, in order."""
        names = {call.id: call.name for call in self.past_calls()}
        outputs: list[tuple[str, str]] = []
        for message in self.messages:
            if isinstance(message, ToolMessage):
                name = message.name or names.get(message.tool_call_id, "")
                outputs.append((name, message_text(message)))
        return outputs

    def last_answered(self) -> str | None:
        """The tool whose answer is the newest message after the last AI turn, if one is."""
        names = {call.id: call.name for call in self.past_calls()}
        for message in reversed(self.messages):
            if isinstance(message, ToolMessage):
                return message.name or names.get(message.tool_call_id)
            if isinstance(message, AIMessage):
                return None
        return None


def dumps_args(args: dict[str, Any]) -> str:
    """Tool-call arguments as JSON, keys sorted so identical calls serialise identically."""
    return json.dumps(args, sort_keys=True, ensure_ascii=False)
