"""Model-call failures as a person can act on them: which role, which endpoint, what happened.

The message is built here from the exception's class and status, never from provider text, so
no key, URL path or stack trace can reach a front end. The session stays resumable.
"""

from __future__ import annotations

import re

import httpcore
import httpx

from engine.middleware.retry import status_code

_CONTEXT_PATTERNS = re.compile(
    r"context length|context window|maximum context|too many tokens|exceeds? the (?:max|context)"
    r"|requested \d+ tokens|prompt is too long|n_ctx|input length",
    re.IGNORECASE,
)


class ModelCallError(RuntimeError):
    """A model call that failed for good; `str()` is safe to show and names role and endpoint."""

    safe_message: str
    # The HTTP status of the last failure, and whether the server could not be reached at all.
    status: int | None = None
    unreachable: bool = False
    # The server stopped its streamed reply midway (no finish reason), on every attempt.
    cut_short: bool = False

    def __init__(self, role: str, endpoint: str, reason: str, *, retryable: bool) -> None:
        hint = (
            "resume the session once the server answers again"
            if retryable
            else "check the model settings (`deepresearch doctor`), then resume the session"
        )
        self.safe_message = f"the {role} model at {endpoint} {reason}; {hint}"
        self.reason = reason
        # The configured model name, once the chat model that called it knows it.
        self.model = ""
        self.role = role
        self.endpoint = endpoint
        self.retryable = retryable
        super().__init__(self.safe_message)


class AllModelsFailed(ModelCallError):
    """A call whose model and every fallback failed; the message names each and why."""

    def __init__(self, role: str, failures: list[ModelCallError]) -> None:
        super().__init__(role, failures[0].endpoint, "failed", retryable=True)
        each = "; ".join(
            f"{failure.model} at {failure.endpoint} {failure.reason}" for failure in failures
        )
        self.safe_message = (
            f"every {role} model failed: {each}; resume the session once one of them answers"
        )
        self.args = (self.safe_message,)
        self.retryable = any(failure.retryable for failure in failures)


def is_context_overflow(exc: BaseException) -> bool:
    """Whether the server refused the request for being longer than its window."""
    code = status_code(exc)
    if code not in (None, 400, 413, 422, 500):
        return False
    return bool(_CONTEXT_PATTERNS.search(str(exc)[:2000]))


# Errors raised while reading a reply: the server took the connection and answered, then
# closed it midway. llama-cpp-python does this when a request fails after its stream began
# (it refuses streamed `tool_choice: auto` so), which the client library reports as a
# "connection error" like a server that is down.
_BROKEN_REPLY_ERRORS = (
    httpx.ReadError,
    httpx.RemoteProtocolError,
    httpcore.ReadError,
    httpcore.RemoteProtocolError,
)
BROKE_OFF = "broke off its reply midway (its own log says why)"


def broke_off(exc: BaseException) -> bool:
    """Whether `exc` comes from a reply that began and broke off, not from no connection."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, _BROKEN_REPLY_ERRORS):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def unreachable(exc: BaseException) -> bool:
    """Whether the server could not be reached at all (no connection, or no answer in time)."""
    name = type(exc).__name__
    return ("Connection" in name or "Timeout" in name) and not broke_off(exc)


def describe_failure(exc: BaseException) -> tuple[str, bool]:
    """A short reason for `exc` and whether trying again later could help."""
    code = status_code(exc)
    name = type(exc).__name__
    refused = _refusal(code, name)
    if refused is not None:
        return refused
    if is_context_overflow(exc):
        return "refused a prompt longer than its context window (MODEL_MAX_INPUT_TOKENS)", False
    if code is not None:
        return _http_failure(code)
    if broke_off(exc):
        return BROKE_OFF, True
    return _transport_failure(exc, name)


def _refusal(code: int | None, name: str) -> tuple[str, bool] | None:
    """The server refused the caller: its key, the model or path, or the request rate."""
    if code in (401, 403) or "Authentication" in name or "PermissionDenied" in name:
        return "refused the API key (OPENAI_API_KEY)", False
    if code == 404:
        return "does not know this model or path (check *_MODEL and *_BASE_URL)", False
    if code == 429 or "RateLimit" in name:
        return "is rate limiting requests", True
    return None


def _http_failure(code: int) -> tuple[str, bool]:
    if 500 <= code < 600:
        return f"failed with HTTP {code} on every attempt", True
    return f"rejected the request (HTTP {code})", False


# Failures without an HTTP status, by a word of the exception's class name (or its class).
_TRANSPORT_FAILURES: tuple[tuple[str, type[BaseException] | None, str], ...] = (
    ("Timeout", TimeoutError, "did not answer in time (LLM_TIMEOUT_SECONDS)"),
    ("Connection", ConnectionError, "cannot be reached"),
    ("CutShort", None, "stopped answering midway (is another client using the server?)"),
    ("Empty", None, "returned no answer"),
)


def _transport_failure(exc: BaseException, name: str) -> tuple[str, bool]:
    """No answer, or no whole one: each is worth trying again later."""
    for word, kind, reason in _TRANSPORT_FAILURES:
        if word in name or (kind is not None and isinstance(exc, kind)):
            return reason, True
    return f"failed ({name})", True
