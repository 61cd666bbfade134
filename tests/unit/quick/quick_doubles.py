"""Test doubles for the quick path: a scripted chat model that records what it was sent and
which tools were bound for each call, and deterministic research tools.

Unlike the stock fake chat models, `bind_tools` works (it returns a copy that remembers the
tool names and shares the script and the call log), so the tests can tell a tool-bound call
from the tool-free synthesis call.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import ConfigDict, Field

_ids = itertools.count(1)

Reply = AIMessage | str | BaseException
Responder = Callable[[list[BaseMessage]], Reply]
Passage = tuple[str, str, str]  # title, document key, passage


def search_results(query: str, *passages: Passage) -> str:
    """Local search results in the shape the search tool writes them."""
    blocks = [f'Search results for "{query}":']
    for number, (title, key, passage) in enumerate(passages, start=1):
        blocks.append(f"[{number}] {title}\nDocument: {key}\n{passage}")
    return "\n\n".join(blocks)


def passages_search(*passages: Passage) -> list[BaseTool]:
    """A search tool that answers every query with `passages`."""

    def search_web(query: str) -> str:
        return search_results(query, *passages)

    return [StructuredTool.from_function(search_web, name="search_web", description="s")]


def calls_message(*calls: tuple[str, dict[str, Any]], content: str = "") -> AIMessage:
    """An assistant message asking for one or more (parallel) tool calls."""
    return AIMessage(
        content=content,
        tool_calls=[
            {"name": name, "args": args, "id": f"call_{next(_ids)}", "type": "tool_call"}
            for name, args in calls
        ],
    )


def search(query: str) -> tuple[str, dict[str, Any]]:
    return ("search_web", {"query": query})


@dataclass
class ModelCall:
    messages: list[BaseMessage]
    bound_tools: tuple[str, ...]
    max_tokens: int | None = None


@dataclass
class Script:
    """Shared by a model and its tool-bound copies."""

    responder: Responder
    calls: list[ModelCall] = field(default_factory=list)


class RecordingChatModel(BaseChatModel):
    """Replies from a responder (a function of the conversation); records every call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Script
    delay: float = 0.0
    bound_tools: tuple[str, ...] = Field(default=())

    @classmethod
    def replying(cls, responder: Responder, **kwargs: Any) -> RecordingChatModel:
        return cls(script=Script(responder), **kwargs)

    @classmethod
    def sequence(cls, replies: Sequence[Reply], **kwargs: Any) -> RecordingChatModel:
        queue = list(replies)

        def next_reply(_: list[BaseMessage]) -> Reply:
            return queue.pop(0) if queue else AssertionError("script ran out of replies")

        return cls.replying(next_reply, **kwargs)

    @property
    def calls(self) -> list[ModelCall]:
        return self.script.calls

    @property
    def _llm_type(self) -> str:
        return "recording-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        names = tuple(getattr(t, "name", None) or getattr(t, "__name__", "") for t in tools)
        return self.model_copy(update={"bound_tools": names})

    def _reply(self, messages: list[BaseMessage], max_tokens: int | None = None) -> ChatResult:
        self.script.calls.append(ModelCall(list(messages), self.bound_tools, max_tokens))
        reply = self.script.responder(list(messages))
        if isinstance(reply, BaseException):
            raise reply
        message = AIMessage(content=reply) if isinstance(reply, str) else reply
        # A fresh copy each time: the graph's reducer assigns ids to the objects it stores.
        return ChatResult(generations=[ChatGeneration(message=message.model_copy(deep=True))])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._reply(messages, kwargs.get("max_tokens"))

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._reply(messages, kwargs.get("max_tokens"))


@dataclass
class FakeTools:
    """Deterministic `search_web`, `fetch_url` and `think_tool` that log their calls."""

    result_chars: int = 300
    fail_with: BaseException | None = None
    log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def _search(self, query: str) -> str:
        self.log.append(("search_web", {"query": query}))
        if self.fail_with is not None:
            raise self.fail_with
        slug = "-".join(query.lower().split()) or "empty"
        url = f"https://example.org/{slug}/{len(self.log)}"
        header = f"[1] Result about {query}\nURL: {url}\n"
        filler = "Passage text about the subject. " * (self.result_chars // 32 + 1)
        return (header + filler)[: max(self.result_chars, len(header))]

    def _fetch(self, url: str) -> str:
        self.log.append(("fetch_url", {"url": url}))
        return f"Page text of {url}."

    def _think(self, reflection: str) -> str:
        self.log.append(("think_tool", {"reflection": reflection}))
        return "noted"

    def tools(self) -> list[BaseTool]:
        return [
            StructuredTool.from_function(
                self._search, name="search_web", description="Search the web for a query."
            ),
            StructuredTool.from_function(
                self._fetch, name="fetch_url", description="Fetch a web page's text."
            ),
            StructuredTool.from_function(
                self._think, name="think_tool", description="Reflect on progress."
            ),
        ]

    def count(self, name: str | None = None) -> int:
        return sum(1 for tool, _ in self.log if name is None or tool == name)
