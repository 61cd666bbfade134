"""Retries of transient model failures: exponential backoff with jitter, honouring Retry-After.

Transient means rate limits (429), server errors (5xx), timeouts and dropped connections.
Anything else (a bad request, a refused key) fails at once: retrying cannot fix it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse

from engine.text.retry_after import parse_retry_after

T = TypeVar("T")

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429})
_TRANSIENT_NAMES = frozenset(
    {
        "APITimeoutError",
        "APIConnectionError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "TimeoutException",
        "ConnectError",
        "ReadTimeout",
        "ReadError",
        "WriteError",
        "RemoteProtocolError",
        "PoolTimeout",
    }
)
# Never wait longer than this for one retry, whatever a server's Retry-After asks for.
MAX_RETRY_WAIT_SECONDS = 120.0


def status_code(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (OpenAI and httpx errors), if any."""
    for candidate in (exc, getattr(exc, "response", None)):
        code = getattr(candidate, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def is_transient(exc: BaseException) -> bool:
    """Whether retrying the same call may succeed."""
    code = status_code(exc)
    if code is not None:
        return code in _TRANSIENT_STATUS or 500 <= code < 600
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    return any(cls.__name__ in _TRANSIENT_NAMES for cls in type(exc).__mro__)


def retry_after_seconds(exc: BaseException) -> float | None:
    """The wait a server asked for in `Retry-After` / `retry-after-ms`, in seconds."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


@dataclass
class RetryPolicy:
    """How often and how long to retry; `sleep` and `rng` are injectable for tests."""

    max_retries: int = 10
    base_delay: float = 1.0
    max_delay: float = 60.0
    rng: random.Random = field(default_factory=random.Random)
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    sync_sleep: Callable[[float], None] = time.sleep
    # The longest one wait may be, whatever a server's Retry-After asks for.
    max_retry_wait: float = MAX_RETRY_WAIT_SECONDS

    def delay(self, attempt: int, exc: BaseException) -> float:
        """Wait before retry number `attempt` (0-based): backoff with jitter, or Retry-After."""
        backoff = min(self.max_delay, self.base_delay * (2**attempt))
        jittered = backoff * (0.5 + self.rng.random() / 2)
        asked = retry_after_seconds(exc)
        if asked is not None:
            return min(self.max_retry_wait, max(asked, jittered))
        return jittered


async def acall_with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """Await `call()`, retrying transient failures up to `policy.max_retries` times."""
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as exc:
            if attempt >= policy.max_retries or not is_transient(exc):
                raise
            await policy.sleep(policy.delay(attempt, exc))
            attempt += 1


def call_with_retries(call: Callable[[], T], policy: RetryPolicy) -> T:
    """Synchronous `acall_with_retries`."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if attempt >= policy.max_retries or not is_transient(exc):
                raise
            policy.sync_sleep(policy.delay(attempt, exc))
            attempt += 1


class ModelRetryMiddleware(AgentMiddleware):
    """Retries each model call of an agent on transient errors."""

    def __init__(self, policy: RetryPolicy) -> None:
        super().__init__()
        self.policy = policy

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        return call_with_retries(lambda: handler(request), self.policy)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await acall_with_retries(lambda: handler(request), self.policy)
