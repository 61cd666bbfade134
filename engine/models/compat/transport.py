"""One streamed request to the server, with context fitting, retries and a safe error.

Streaming is what keeps long calls honest: progress is visible while tokens arrive, the read
timeout measures silence rather than total length, and a server that streams stops working
on a request its client abandoned, so a retry does not queue behind its own ghost.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message

from engine.logs import get_logger
from engine.messages import message_chars
from engine.middleware.retry import RetryPolicy, is_transient, status_code
from engine.models.compat.context_fit import TokenEstimator, fit_messages, shrink
from engine.models.compat.degenerate import degeneration_watch
from engine.models.compat.errors import (
    ModelCallError,
    describe_failure,
    is_context_overflow,
    unreachable,
)
from engine.models.compat.progress import CallProgress, announce_retry
from engine.models.compat.reply_watch import STOPPED_EARLY, WatchedText, current_watch

# 5xx and dropped connections: a couple of tries, then tell the person (a broken request
# fails the same way every time). Timeouts: once, the server may still be busy.
SERVER_ERROR_RETRIES = 2
TIMEOUT_RETRIES = 1
CONTEXT_SHRINKS = 2
SHRINK_FACTOR = 0.6
# Prompt processing on a small CPU server runs at tens of tokens per second.
PROMPT_TOKENS_PER_SECOND_FLOOR = 40

logger = get_logger("models.transport")  # into DATA_DIR/logs/deepresearch.log


class EmptyReplyError(RuntimeError):
    """The server ended the response without a message."""


class CutShortError(EmptyReplyError):
    """The stream ended without a finish reason: the reply is a fragment, not an answer.

    llama-cpp-python ends a running stream when another request arrives; a dropped
    connection looks the same. A fragment taken as the answer loses a tool call or a report.
    """

    # Requests to the endpoint begun after this one and before its stream ended: what makes
    # llama-cpp-python end a stream, as opposed to the network.
    arrived_since: int = 0


@dataclass
class Transport:
    """Sends chat requests for one role to one endpoint."""

    client: Any  # a langchain_openai.ChatOpenAI
    role: str
    endpoint: str
    context_window: int
    timeout_seconds: float
    # langchain-openai sends `max_completion_tokens`, which OpenAI reads and many compatible
    # servers (llama-cpp-python among them) silently ignore: they get `max_tokens` instead.
    plain_max_tokens: bool = True
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    estimator: TokenEstimator = field(default_factory=TokenEstimator)
    # Set once the server has cut a reply short: some servers (llama-cpp-python) end a
    # running stream when another request arrives, so parallel researchers would cut each
    # other off forever. From then on this endpoint gets one request at a time.
    one_at_a_time: bool = False
    # Told when a stream was cut just after another request began: what the server does, worth
    # remembering for later sessions (a cut with no request since may be the network).
    learned_one_at_a_time: Callable[[], None] | None = None
    _turn: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _begun: int = field(default=0, repr=False)

    def _turn_for_request(self) -> contextlib.AbstractAsyncContextManager[Any]:
        return self._turn if self.one_at_a_time else contextlib.nullcontext()

    def _timeout_for(self, prompt_tokens: int) -> float:
        return max(self.timeout_seconds, prompt_tokens / PROMPT_TOKENS_PER_SECOND_FLOOR)

    async def send(
        self,
        messages: Sequence[BaseMessage],
        *,
        max_tokens: int,
        retry_server_errors: bool = True,
        role: str | None = None,
        policy: RetryPolicy | None = None,
        timeout_seconds: float | None = None,
        **request: Any,
    ) -> AIMessage:
        """The server's reply to `messages`; raises `ModelCallError` when it cannot be had.

        `role` names the asking role in progress and errors (roles may share an endpoint).
        `policy` and `timeout_seconds` bound this one request tighter than the endpoint's own
        (a capability probe must not wait through a rate limit as a research call does).
        """
        role = role or self.role
        policy = policy or self.policy
        extra = len(str(request.get("tools") or "")) + len(
            str(request.get("response_format") or "")
        )
        room = self.context_window - max_tokens
        fitted = fit_messages(
            messages, budget_tokens=room, estimator=self.estimator, extra_chars=extra
        )
        attempt = shrinks = 0
        last_error = ""
        while True:
            try:
                async with self._turn_for_request():
                    return await self._counted_stream(
                        fitted, max_tokens, extra, request, role, timeout_seconds
                    )
            except ModelCallError:
                raise
            except ValueError as exc:
                if "No generation chunks" not in str(exc):
                    raise
                # The server closed the stream without a chunk (often an error it could not
                # send once streaming had begun): treat it like an empty reply.
                if attempt >= min(1, policy.max_retries):
                    raise self._failure(EmptyReplyError("no chunks"), role) from exc
                attempt += 1
            except Exception as exc:
                if isinstance(exc, CutShortError):
                    self._cut_short(arrived_since=exc.arrived_since)
                if is_context_overflow(exc) and shrinks < CONTEXT_SHRINKS:
                    shrinks += 1
                    fitted = shrink(fitted, SHRINK_FACTOR, self.estimator)
                    continue
                reason, _ = describe_failure(exc)
                limit = self._retries_for(exc, retry_server_errors, policy)
                body = str(exc)[:500]
                repeated = (status_code(exc) or 0) >= 500 and body == last_error
                if attempt >= limit or repeated:
                    raise self._failure(exc, role) from exc
                last_error = body
                wait = policy.delay(attempt, exc)
                # The log keeps the cause of every retry (the event shows only the latest).
                logger.warning(
                    "%s model at %s: attempt %d failed (%s, %s); retrying in %.0fs",
                    role,
                    self.endpoint,
                    attempt + 1,
                    type(exc).__name__,
                    reason,
                    wait,
                )
                announce_retry(role, self.endpoint, attempt, reason, wait)
                await policy.sleep(wait)
                attempt += 1

    async def _counted_stream(self, *args: Any) -> AIMessage:
        """`_stream`, noting how many requests began after it if it is cut short."""
        self._begun += 1
        mine = self._begun
        try:
            return await self._stream(*args)
        except CutShortError as exc:
            exc.arrived_since = self._begun - mine
            raise

    def _cut_short(self, *, arrived_since: int) -> None:
        self.one_at_a_time = True
        if arrived_since and self.learned_one_at_a_time is not None:
            self.learned_one_at_a_time()

    def _retries_for(
        self, exc: BaseException, retry_server_errors: bool, policy: RetryPolicy
    ) -> int:
        if not is_transient(exc) and not isinstance(exc, EmptyReplyError):
            return 0
        code = status_code(exc)
        if code == 429:
            return policy.max_retries
        if code is not None and code >= 500:
            return min(SERVER_ERROR_RETRIES, policy.max_retries) if retry_server_errors else 0
        if "Timeout" in type(exc).__name__ or isinstance(exc, TimeoutError):
            return min(TIMEOUT_RETRIES, policy.max_retries)
        return min(SERVER_ERROR_RETRIES, policy.max_retries)

    def _failure(self, exc: BaseException, role: str) -> ModelCallError:
        reason, retryable = describe_failure(exc)
        error = ModelCallError(role, self.endpoint, reason, retryable=retryable)
        error.status = status_code(exc)
        error.unreachable = unreachable(exc)
        error.cut_short = isinstance(exc, CutShortError)
        return error

    async def _stream(
        self,
        messages: list[BaseMessage],
        max_tokens: int,
        extra: int,
        request: dict[str, Any],
        role: str,
        timeout_seconds: float | None = None,
    ) -> AIMessage:
        prompt_tokens = self.estimator.tokens(messages, extra)
        # Never ask for more than the window leaves once the prompt is in.
        cap = max(16, min(max_tokens, self.context_window - prompt_tokens))
        if self.plain_max_tokens:
            extra_body = {**(request.pop("extra_body", None) or {}), "max_tokens": cap}
            request = {**request, "extra_body": extra_body}
        else:
            request = {**request, "max_tokens": cap}
        timeout = self._timeout_for(prompt_tokens)
        if timeout_seconds is not None:
            timeout = min(timeout, timeout_seconds)
        bound = self.client.bind(timeout=timeout, **request)
        aggregate: AIMessageChunk | None = None
        degeneration = degeneration_watch(messages)
        asked = current_watch()
        watched = WatchedText(
            degeneration if asked is None else lambda text: asked(text) or degeneration(text)
        )
        stopped = False
        # Closed on leaving, so a reply stopped early also ends its HTTP stream.
        stream = bound.astream(messages, config={"callbacks": []})
        async with CallProgress(role, self.endpoint) as progress, contextlib.aclosing(stream):
            # Callbacks off on the inner call: the outer model reports this call once.
            async for chunk in stream:
                aggregate = chunk if aggregate is None else aggregate + chunk
                progress.tick()
                text = chunk.content if isinstance(chunk.content, str) else ""
                if watched.add(text):
                    stopped = True
                    break
                await asyncio.sleep(0)
        if aggregate is None:
            raise EmptyReplyError("no chunks")
        message = message_chunk_to_message(aggregate)
        if not isinstance(message, AIMessage):
            raise EmptyReplyError("not an assistant message")
        if stopped:
            message = _stopped_early(message, degeneration.cut_at)
        if not message.response_metadata.get("finish_reason"):
            raise CutShortError("the stream ended without a finish reason")
        chars = sum(message_chars(item) for item in messages) + extra
        usage = message.usage_metadata
        if usage and usage.get("input_tokens"):
            self.estimator.observe(chars, int(usage["input_tokens"]))
        else:
            out = int(len(str(message.content)) / self.estimator.chars_per_token)
            message.usage_metadata = {
                "input_tokens": prompt_tokens,
                "output_tokens": out,
                "total_tokens": prompt_tokens + out,
            }
        return message


def _stopped_early(message: AIMessage, cut_at: int | None) -> AIMessage:
    """`message` marked as ended by a watch; cut back to `cut_at` when the model had begun
    repeating itself or its prompt there (what it said before that is its reply)."""
    metadata = {**message.response_metadata, "finish_reason": STOPPED_EARLY}
    update: dict[str, Any] = {"response_metadata": metadata}
    if cut_at is not None and isinstance(message.content, str):
        update["content"] = message.content[:cut_at].rstrip()
    return message.model_copy(update=update)
