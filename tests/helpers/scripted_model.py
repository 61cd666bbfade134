"""A scripted chat model double: replies computed from the conversation, no network.

The stock fake chat models raise on `bind_tools`; this one returns itself from `bind_tools`, so
it drives tool-calling agents (deepagents researchers, the supervisor) and
`with_structured_output` (a reply that calls a tool named after the schema). Give it a
`responder` (a function of the messages) or a fixed sequence of replies. A reply may be an
`AIMessage`, a string, or an exception instance to raise. Every call is recorded.

    model = ScriptedChatModel.sequence([structured_reply(ClarifyWithUser(...)), "done"])
    model = ScriptedChatModel(responder=lambda messages: tool_call_message("think_tool", {...}))
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

Reply = AIMessage | str | BaseException
Responder = Callable[[list[BaseMessage]], Reply]

_ids = itertools.count(1)


def tool_call_message(
    name: str, args: dict[str, Any] | None = None, *, call_id: str | None = None, content: str = ""
) -> AIMessage:
    """An AI message that calls one tool."""
    return tool_calls_message([(name, args or {})], content=content, call_ids=[call_id])


def tool_calls_message(
    calls: Sequence[tuple[str, dict[str, Any]]],
    *,
    content: str = "",
    call_ids: Sequence[str | None] | None = None,
) -> AIMessage:
    """An AI message that calls several tools at once (a parallel wave)."""
    ids = list(call_ids or [None] * len(calls))
    return AIMessage(
        content=content,
        tool_calls=[
            {"name": name, "args": args, "id": ids[i] or f"call_{next(_ids)}", "type": "tool_call"}
            for i, (name, args) in enumerate(calls)
        ],
    )


def structured_reply(value: BaseModel) -> AIMessage:
    """The reply `with_structured_output(type(value))` parses back into `value`."""
    return tool_call_message(type(value).__name__, value.model_dump(mode="json"))


def human_text(messages: Sequence[BaseMessage]) -> str:
    """All human message text of a conversation (what a responder usually inspects)."""
    return "\n".join(m.text for m in messages if isinstance(m, HumanMessage))


def system_text(messages: Sequence[BaseMessage]) -> str:
    return "\n".join(m.text for m in messages if isinstance(m, SystemMessage))


class ScriptedChatModel(BaseChatModel):
    """A chat model whose replies come from a function of the conversation."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responder: Responder
    delay: float = 0.0
    sync_delay: bool = False
    usage: dict[str, int] | None = Field(
        default_factory=lambda: {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    )
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def sequence(cls, replies: Iterable[Reply], **kwargs: Any) -> ScriptedChatModel:
        """Replies in order; running out is an error the test sees."""
        queue = list(replies)
        lock = threading.Lock()

        def next_reply(_: list[BaseMessage]) -> Reply:
            with lock:
                if not queue:
                    return AssertionError("scripted model ran out of replies")
                return queue.pop(0)

        return cls(responder=next_reply, **kwargs)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _reply(self, messages: list[BaseMessage]) -> ChatResult:
        with self._lock:
            self.calls.append(list(messages))
        reply = self.responder(list(messages))
        if isinstance(reply, BaseException):
            raise reply
        message = AIMessage(content=reply) if isinstance(reply, str) else reply
        if self.usage is not None and message.usage_metadata is None:
            message = message.model_copy(update={"usage_metadata": dict(self.usage)})
        if message.id is None:
            message = message.model_copy(update={"id": f"scripted-{next(_ids)}"})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            time.sleep(self.delay)
        return self._reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            if self.sync_delay:
                time.sleep(self.delay)
            else:
                await asyncio.sleep(self.delay)
        return self._reply(messages)
