"""`CompatChatModel`: the one chat model the engine talks to for every real server.

It wraps a `ChatOpenAI` client and makes every server look like a well-behaved OpenAI one:
tools are sent natively or described in the prompt (per the endpoint's profile), tool calls
written as text are parsed, reasoning blocks are dropped, every reply has a role-sized
`max_tokens`, requests fit the window, structured output falls back method by method, and
failures end in a `ModelCallError` that names the role and endpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.config import Role
from engine.emit import emit
from engine.events import ModelSwitched
from engine.messages import message_text
from engine.model_usage import ANSWERED_BY
from engine.models.compat.errors import AllModelsFailed, ModelCallError
from engine.models.compat.normalize import (
    parse_text_tool_calls,
    strip_reasoning,
    unescape_entities,
    unescape_values,
    unwrap_schema_shape,
)
from engine.models.compat.profile import ModelProfile, StructuredMethod
from engine.models.compat.prompted_tools import render_conversation
from engine.models.compat.secrets import without_secrets
from engine.models.compat.structured import (
    json_from_reply,
    methods_from,
    request_for,
    schema_instruction,
    with_instruction,
)
from engine.models.compat.transport import Transport

# Request fields that only mean something to a server that takes tools natively.
_NATIVE_ONLY = ("parallel_tool_calls", "strict")
STRUCTURED_OUTPUT_TOKENS = 1024
FAILED_ENDPOINT_REST_SECONDS = 60.0
# A profile assumed because the probes got no answer is probed for again after this long.
ASSUMED_PROFILE_SECONDS = 300.0
# Where a structured reply carries the JSON arguments it was parsed into (None: no JSON).
STRUCTURED_ARGS = "structured_args"


@dataclass
class Endpoint:
    """What the models of one endpoint share: transport state and the (detected) profile."""

    transport: Transport
    profile: ModelProfile | None
    detect: Callable[[Transport], Any] | None = None
    remember: Callable[[ModelProfile], None] | None = None
    # What the settings pin over a detected profile (the cache keeps what was detected).
    pin: Callable[[ModelProfile], ModelProfile] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Until when calls skip this endpoint for the next fallback: one that just failed for good
    # (down, timing out) would make every call wait through its retries again.
    resting_until: float = 0.0
    # Until when an assumed profile (probes unanswered) stands before the server is probed
    # again: it is what the server could not say, not what the model does.
    assumed_until: float = 0.0

    # Remembers, for this endpoint alone, that it serves one request at a time.
    remember_one_at_a_time: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        self.transport.learned_one_at_a_time = self._learned_one_at_a_time
        if self.profile is not None and self.profile.one_at_a_time:
            self.transport.one_at_a_time = True

    def _learned_one_at_a_time(self) -> None:
        if self.profile is not None and self.profile.one_at_a_time:
            return
        if self.profile is not None:
            self.profile = replace(self.profile, one_at_a_time=True)
        if self.remember_one_at_a_time is not None:
            self.remember_one_at_a_time()

    def rest(self) -> None:
        self.resting_until = time.monotonic() + FAILED_ENDPOINT_REST_SECONDS

    def resting(self) -> bool:
        return time.monotonic() < self.resting_until

    async def resolved(self, role: str | None = None) -> ModelProfile:
        """The endpoint's profile, probed on first use by whichever role calls first."""
        if self.profile is not None and not self._probe_again():
            return self.profile
        async with self.lock:
            if self.profile is None or self._probe_again():
                assert self.detect is not None, "an endpoint without a profile needs a detector"
                # Roles share an endpoint: the probe's progress and errors name the one asking.
                self.transport.role = role or self.transport.role
                detected = await self.detect(self.transport)
                if detected.conclusive and self.remember is not None:
                    self.remember(detected)
                self.assumed_until = (
                    0.0 if detected.conclusive else time.monotonic() + ASSUMED_PROFILE_SECONDS
                )
                self.profile = self.pin(detected) if self.pin is not None else detected
                if self.profile.one_at_a_time:
                    self.transport.one_at_a_time = True
        return self.profile

    def _probe_again(self) -> bool:
        return bool(self.assumed_until) and time.monotonic() >= self.assumed_until

    def downgrade(self, method: StructuredMethod) -> None:
        if self.profile is not None and self.profile.structured_output != method:
            self.profile = self.profile.with_structured(method)
            if self.remember is not None:
                self.remember(self.profile)


def _forced_name(tool_choice: Any) -> str | None:
    if isinstance(tool_choice, dict):
        return (tool_choice.get("function") or {}).get("name") or tool_choice.get("name")
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "none", "required", "any"):
        return tool_choice
    return None


def _tool_names(tools: Sequence[dict[str, Any]]) -> list[str]:
    return [str((tool.get("function") or tool).get("name", "")) for tool in tools]


def normalized(reply: AIMessage, tool_names: Sequence[str]) -> AIMessage:
    """The reply with text tool calls parsed and reasoning removed."""
    text = strip_reasoning(unescape_entities(message_text(reply)))
    calls: list[Any] = [
        {**call, "args": unescape_values(call["args"])} for call in reply.tool_calls
    ]
    if tool_names and not calls:
        parsed = parse_text_tool_calls(text, tool_names)
        text, calls = parsed.text, parsed.tool_calls
    calls = [{**call, "args": unwrap_schema_shape(call["args"])} for call in calls]
    return reply.model_copy(
        update={
            "content": text,
            "tool_calls": calls,
            "invalid_tool_calls": [] if calls else reply.invalid_tool_calls,
            "additional_kwargs": {
                key: value
                for key, value in reply.additional_kwargs.items()
                if key not in ("tool_calls", "function_call", "reasoning_content")
            },
        }
    )


def parsed_structured(raw: AIMessage, schema: Any) -> dict[str, Any]:
    """`{"parsed", "raw", "parsing_error"}` as LangChain's `include_raw` returns it."""
    args = raw.response_metadata.get(STRUCTURED_ARGS)
    if args is None:
        return {"parsed": None, "raw": raw, "parsing_error": ValueError("no JSON object")}
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            return {"parsed": schema.model_validate(args), "raw": raw, "parsing_error": None}
        except ValidationError as exc:
            return {"parsed": None, "raw": raw, "parsing_error": exc}
    return {"parsed": args, "raw": raw, "parsing_error": None}


class CompatChatModel(BaseChatModel):
    """A chat model over any OpenAI-compatible server, normalized at the boundary."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: Role
    model_name: str
    endpoint: Endpoint = Field(exclude=True)
    output_ceiling: int = 0
    # Models that take over a call this one fails for good (FALLBACK_MODELS), in order.
    fallbacks: list[CompatChatModel] = Field(default_factory=list, exclude=True)
    # The configured secrets (keys, token, connection URL): redacted from every reply.
    secrets: tuple[str, ...] = Field(default=(), exclude=True, repr=False)

    @property
    def _llm_type(self) -> str:
        return "openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "role": self.role}

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        # The JSON is asked for inside a normal chat-model run, so usage callbacks and
        # tracing see structured calls like any other call.
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            name, json_schema = schema.__name__, schema.model_json_schema()
        else:
            tool = convert_to_openai_tool(schema)["function"]
            name, json_schema = tool["name"], tool.get("parameters", {})

        def parse(raw: AIMessage) -> Any:
            result = parsed_structured(raw, schema)
            return result if include_raw else result["parsed"]

        bound = self.bind(structured_output={"name": name, "schema": json_schema})
        return bound | RunnableLambda(parse)

    # ---- the calls ------------------------------------------------------------------

    def _cap(self, profile: ModelProfile, asked: int | None) -> int:
        cap = asked or profile.output_cap(self.role)
        return min(cap, self.output_ceiling) if self.output_ceiling else cap

    async def areply(self, messages: Sequence[BaseMessage], **kwargs: Any) -> AIMessage:
        """One normalized reply (what `_agenerate` wraps)."""
        profile = await self.endpoint.resolved(self.role)
        tools: list[dict[str, Any]] = list(kwargs.pop("tools", None) or [])
        tool_choice = kwargs.pop("tool_choice", None)
        kwargs.pop("ls_structured_output_format", None)
        max_tokens = self._cap(profile, kwargs.pop("max_tokens", None))
        names = _tool_names(tools)
        forced = _forced_name(tool_choice)
        if tools and tool_choice == "none":
            tools, names = [], []
        transport = self.endpoint.transport
        if tools and forced and profile.tool_calling == "prompted":
            return await self._forced_call(messages, tools, forced, profile, max_tokens)
        if profile.tool_calling == "native":
            request = dict(kwargs)
            if tools:
                request["tools"] = tools
                request["tool_choice"] = tool_choice or "auto"
            reply = await transport.send(messages, max_tokens=max_tokens, role=self.role, **request)
            return normalized(reply, names)
        for key in _NATIVE_ONLY:
            kwargs.pop(key, None)
        required = tool_choice in ("required", "any")
        conversation = render_conversation(messages, tools, required=required)
        reply = await transport.send(conversation, max_tokens=max_tokens, role=self.role, **kwargs)
        return normalized(reply, names)

    async def _forced_call(
        self,
        messages: Sequence[BaseMessage],
        tools: list[dict[str, Any]],
        name: str,
        profile: ModelProfile,
        max_tokens: int,
    ) -> AIMessage:
        """A forced tool call on a server without native tools: its arguments as JSON."""
        tool = next((t for t in tools if _tool_names([t])[0] == name), tools[0])
        function = tool.get("function") or tool
        schema = function.get("parameters") or {"type": "object"}
        described = f"the arguments of {name} ({function.get('description', '')})".strip()
        conversation = render_conversation(messages, [])
        result = await self._json_reply(conversation, described, schema, profile, max_tokens)
        args, raw = result
        if args is None:
            return raw
        from engine.models.compat.normalize import new_call_id

        call = {"name": name, "args": args, "id": new_call_id(), "type": "tool_call"}
        return AIMessage(content="", tool_calls=[call], usage_metadata=raw.usage_metadata)

    async def _json_reply(
        self,
        messages: Sequence[BaseMessage],
        name: str,
        schema: dict[str, Any],
        profile: ModelProfile,
        max_tokens: int,
    ) -> tuple[dict[str, Any] | None, AIMessage]:
        """A JSON object for `schema`, trying the profile's method and then its fallbacks."""
        transport = self.endpoint.transport
        methods = methods_from(profile.structured_output)
        for position, method in enumerate(methods):
            prompt = list(messages)
            if method != "json_schema":
                prompt = with_instruction(prompt, schema_instruction(name, schema))
            last = position == len(methods) - 1
            try:
                reply = await transport.send(
                    prompt,
                    max_tokens=max_tokens,
                    retry_server_errors=last,
                    role=self.role,
                    **request_for(method, name, schema),
                )
            except ModelCallError as exc:
                if last or exc.unreachable or exc.status == 429:
                    raise
                # The server refused this way of asking for JSON: never ask it that way again.
                self.endpoint.downgrade(methods[position + 1])
                continue
            try:
                return json_from_reply(reply, method), reply
            except ValueError:
                return None, reply
        raise AssertionError("unreachable: the last method raises or returns")

    async def astructured_reply(
        self, messages: Sequence[BaseMessage], name: str, json_schema: dict[str, Any]
    ) -> AIMessage:
        """The raw reply to a request for JSON; its arguments ride in `response_metadata`."""
        profile = await self.endpoint.resolved(self.role)
        cap = self._cap(profile, min(STRUCTURED_OUTPUT_TOKENS * 2, profile.output_cap(self.role)))
        rendered = (
            render_conversation(messages, []) if profile.tool_calling == "prompted" else messages
        )
        args, raw = await self._json_reply(rendered, name, json_schema, profile, cap)
        metadata = {**raw.response_metadata, STRUCTURED_ARGS: args}
        return raw.model_copy(update={"response_metadata": metadata})

    # ---- BaseChatModel hooks --------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return asyncio.run(self._agenerate(messages, stop, None, **kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if stop:
            kwargs["stop"] = stop
        failures: list[ModelCallError] = []
        chain = [self, *self.fallbacks]
        for position, model in enumerate(chain):
            if model.endpoint.resting() and position < len(chain) - 1:
                continue  # failed moments ago: the switch was announced then
            if failures:
                announce_switch(self.role, failures[-1], model)
            try:
                reply = await model.aone_call(messages, dict(kwargs))
            except ModelCallError as exc:
                exc.model = model.model_name
                failures.append(exc)
                if len(chain) > 1 and exc.retryable:
                    model.endpoint.rest()
                continue
            if model is not self:
                metadata = {**reply.response_metadata, ANSWERED_BY: model.model_name}
                reply = reply.model_copy(update={"response_metadata": metadata})
            # The one door model text comes in by: a secret it echoes goes no further.
            reply = without_secrets(reply, self.secrets)
            return ChatResult(generations=[ChatGeneration(message=reply)])
        if len(failures) == 1:
            raise failures[0]
        raise AllModelsFailed(self.role, failures)

    async def aone_call(self, messages: Sequence[BaseMessage], kwargs: dict[str, Any]) -> AIMessage:
        """One call on this model alone: a structured reply or a chat reply."""
        structured = kwargs.pop("structured_output", None)
        if structured is not None:
            return await self.astructured_reply(messages, structured["name"], structured["schema"])
        return await self.areply(messages, **kwargs)


def announce_switch(role: str, failure: ModelCallError, to: CompatChatModel) -> None:
    """Say that a call goes to the next fallback model, and why."""
    emit(
        ModelSwitched(
            role=role,
            from_model=failure.model,
            from_endpoint=failure.endpoint,
            to_model=to.model_name,
            to_endpoint=to.endpoint.transport.endpoint,
            reason=failure.reason,
        )
    )
