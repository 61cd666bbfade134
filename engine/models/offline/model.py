"""The offline extractive model: a deterministic chat model that needs no network.

It is not a language model and does not pretend to be one: it plays every role of the graph by
rule (engine/models/offline/policy.py), and every sentence it writes outside headings and short
labels is quoted from text a tool retrieved. It supports what the graph needs from a LangChain
chat model: `bind_tools`, `with_structured_output` (function calling), `ainvoke`, streaming of
text and tool-call chunks, and token usage (counted words).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig, ensure_config
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from engine.model_task import TASK_KEY, task_in
from engine.models.offline.conversation import message_text
from engine.models.offline.policy import respond, to_ai_message
from engine.models.offline.reply import OfflineReply
from engine.models.offline.text import count_words
from engine.report_stream import report_draft

OFFLINE_MODEL_NAME = "offline-extractive"
# The task of a streamed call (its JSON), handed to `_stream`/`_astream` as a keyword argument.
_TASK_KWARG = "offline_task"
_WORDS_PER_TEXT_CHUNK = 12


def usage_for(messages: Sequence[BaseMessage], reply: OfflineReply) -> dict[str, int]:
    """Token usage in counted words: the prompt's words in, the reply's words (and args) out."""
    input_tokens = sum(count_words(message_text(m)) for m in messages)
    output_tokens = count_words(reply.content) + sum(
        count_words(json.dumps(call.args)) for call in reply.tool_calls
    )
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def text_pieces(text: str) -> list[str]:
    """The reply text cut into stream chunks that concatenate back to it exactly."""
    if not text:
        return []
    pieces: list[str] = []
    tokens = text.split(" ")
    for start in range(0, len(tokens), _WORDS_PER_TEXT_CHUNK):
        piece = " ".join(tokens[start : start + _WORDS_PER_TEXT_CHUNK])
        pieces.append(piece if start == 0 else " " + piece)
    return pieces


class OfflineChatModel(BaseChatModel):
    """Deterministic extractive chat model; `delay_seconds` is slept per call (benchmarks)."""

    delay_seconds: float = Field(default=0.0, ge=0.0)
    model_name: str = OFFLINE_MODEL_NAME

    @property
    def _llm_type(self) -> str:
        return OFFLINE_MODEL_NAME

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools in OpenAI function format, as a chat-completions model receives them."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # ---- the decision ------------------------------------------------------------------

    def _decide(
        self,
        messages: list[BaseMessage],
        kwargs: dict[str, Any],
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
    ) -> OfflineReply:
        # The node's task travels in the run's metadata (engine.model_task), never in the prompt.
        metadata = run_manager.metadata if run_manager is not None else None
        if _TASK_KWARG in kwargs:
            metadata = {TASK_KEY: kwargs[_TASK_KWARG]}
        return respond(
            messages,
            kwargs.get("tools"),
            task=task_in(metadata),
            tool_choice=kwargs.get("tool_choice"),
            ls_format=kwargs.get("ls_structured_output_format"),
        )

    def _result(self, messages: list[BaseMessage], reply: OfflineReply) -> ChatResult:
        message = to_ai_message(reply)
        message.usage_metadata = usage_for(messages, reply)  # type: ignore[assignment]
        message.response_metadata = {
            "model_name": self.model_name,
            "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            "offline_role": reply.role,
        }
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _chunks(self, messages: list[BaseMessage], reply: OfflineReply) -> Iterator[AIMessageChunk]:
        for piece in text_pieces(reply.content):
            yield AIMessageChunk(content=piece)
        for index, call in enumerate(reply.tool_calls):
            yield AIMessageChunk(
                content="",
                tool_call_chunks=[
                    tool_call_chunk(
                        name=call.name,
                        args=json.dumps(call.args, ensure_ascii=False),
                        id=call.id,
                        index=index,
                    )
                ],
            )
        yield AIMessageChunk(
            content="",
            usage_metadata=usage_for(messages, reply),
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                "offline_role": reply.role,
            },
            chunk_position="last",
        )

    # ---- the task of streamed calls ------------------------------------------------------
    # LangChain hands `_stream`/`_astream` no run manager, so not the run's metadata. A direct
    # stream passes the task along as a keyword; a call that LangChain would stream on its own
    # (a streaming callback is listening) and that carries a task is answered whole, by
    # `_generate`/`_agenerate`, which see it.

    def _should_stream(
        self,
        *,
        async_api: bool,
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> bool:
        if run_manager is not None and task_in(run_manager.metadata) is not None:
            return False
        return super()._should_stream(async_api=async_api, run_manager=run_manager, **kwargs)

    def stream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        yield from super().stream(input, config, stop=stop, **_with_task(config, kwargs))

    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        async for chunk in super().astream(input, config, stop=stop, **_with_task(config, kwargs)):
            yield chunk

    # ---- BaseChatModel hooks -----------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay_seconds:
            time.sleep(self.delay_seconds)
        return self._result(messages, self._decide(messages, kwargs, run_manager))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)
        reply = self._decide(messages, kwargs, run_manager)
        report = report_draft()
        if report is not None:  # the writer's call: its report, section by section
            report.begin()
            report.add_by_section(reply.content)
        return self._result(messages, reply)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        if self.delay_seconds:
            time.sleep(self.delay_seconds)
        for chunk in self._chunks(messages, self._decide(messages, kwargs, run_manager)):
            if run_manager and isinstance(chunk.content, str) and chunk.content:
                run_manager.on_llm_new_token(
                    chunk.content, chunk=ChatGenerationChunk(message=chunk)
                )
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if self.delay_seconds:
            await asyncio.sleep(self.delay_seconds)
        for chunk in self._chunks(messages, self._decide(messages, kwargs, run_manager)):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager and isinstance(chunk.content, str) and chunk.content:
                await run_manager.on_llm_new_token(chunk.content, chunk=generation)
            yield generation


def _with_task(config: RunnableConfig | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's keyword arguments with its task, when its config (or the run it is part
    of) carries one."""
    metadata = ensure_config(config).get("metadata") or {}
    return {**kwargs, _TASK_KWARG: metadata[TASK_KEY]} if TASK_KEY in metadata else kwargs
