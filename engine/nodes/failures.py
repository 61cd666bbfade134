"""Research-unit failures as the supervisor (and the person) may see them: no URLs, hosts,
stack traces or provider text. Recursion limits keep their number: it says what to tune."""

from __future__ import annotations

import re

from engine.disk_errors import describe, disk_failure

UNIT_TIMED_OUT = "research unit timed out"
UNIT_FAILED = "research unit execution failed"
_RECURSION = re.compile(r"Recursion limit of (\d+) reached", re.IGNORECASE)


def sanitize_unit_failure(
    exc: BaseException, *, time_limit: float | None = None, tool_calls: int | None = None
) -> str:
    """The safe one-line reason a research unit failed; a limit it hit is named with its
    value and setting (`time_limit` in seconds, the unit's `tool_calls` cap)."""
    if isinstance(exc, TimeoutError):
        if time_limit is None:
            return UNIT_TIMED_OUT
        return f"{UNIT_TIMED_OUT} at its limit of {time_limit:g} s (RESEARCH_UNIT_TIMEOUT_SECONDS)"
    match = _RECURSION.search(str(exc))
    if match is not None or type(exc).__name__ == "GraphRecursionError":
        steps = (
            f"Recursion limit of {match.group(1)} reached" if match else "Recursion limit reached"
        )
        if tool_calls is None:
            return steps
        noun = "tool call" if tool_calls == 1 else "tool calls"
        return f"{steps}: the unit's limit of {tool_calls} {noun} (MAX_REACT_TOOL_CALLS)"
    return UNIT_FAILED


def sanitize_run_error(exc: BaseException) -> str:
    """The safe message a front end shows when a whole run fails."""
    failure = disk_failure(exc)
    if failure is not None:
        return describe(failure)
    safe = getattr(exc, "safe_message", None)
    if isinstance(safe, str) and safe:
        # Built by the model boundary from status and class only: role and host:port, no key.
        return safe
    name = type(exc).__name__
    if isinstance(exc, TimeoutError) or "Timeout" in name:
        return "a model or tool call timed out; resume the session to continue"
    if "RateLimit" in name:
        return "the model provider is rate limiting requests; resume the session later"
    if "Authentication" in name or "PermissionDenied" in name:
        return "the model provider refused the API key; check OPENAI_API_KEY"
    if "Connection" in name:
        return "could not reach the model server; check the base URL and your network"
    if name == "StructuredOutputError":
        return "the model did not produce a valid structured reply; try again or another model"
    if name == "GraphRecursionError":
        return "the run hit its step limit"
    return f"the run stopped on an internal error ({name}); resume the session to retry"
