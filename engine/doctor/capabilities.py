"""Capability probes: what one LLM endpoint can do, found by asking it.

Each distinct LLM endpoint gets the probes a run would otherwise send on its first call: one
tool call, one plain answer with tools bound, one JSON reply per structured-output method, and
two requests side by side (does the server cut a reply when another arrives).
What they find is the endpoint's model profile, stored under the data directory so runs reuse
it. Messages name an endpoint by host:port only.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import Settings
from engine.doctor.endpoints import LLMTarget
from engine.doctor.report import CapabilityCheck, Check, EndpointReport

if TYPE_CHECKING:
    from engine.models.compat.profile import ModelProfile

# What `probe_endpoint` writes for a request the server refused outright.
REFUSED_DETAIL = "refused the request"
PLAIN_ANSWER_TOKENS = 16


async def probe_capabilities(
    settings: Settings, target: LLMTarget, reachable: Check, started: float
) -> EndpointReport:
    """Probe one reachable endpoint; its profile is remembered for later runs."""
    from engine.middleware.retry import RetryPolicy
    from engine.models.compat.errors import ModelCallError
    from engine.models.compat.probe import probe_endpoint
    from engine.models.compat.profile import endpoint_label
    from engine.models.factory import make_endpoint

    label = endpoint_label(target.base_url)
    base = EndpointReport(label, target.model, target.roles, reachable)
    role = target.roles[0]
    # One try per probe: a refusal is the answer, and retries would only triple the wait.
    transport = _watched(make_endpoint(settings, role).transport, RetryPolicy(max_retries=0))
    try:
        probed = await probe_endpoint(transport, settings.model_max_input_tokens)
        capabilities = [CapabilityCheck(name, ok, detail) for name, ok, detail in probed.checks]
        if not any(check.ok for check in capabilities):
            capabilities.append(await _plain_answer(transport))
    except ModelCallError as exc:
        return replace(
            base,
            error=f"{_failure_reason(exc)} ({label}; LLM_TIMEOUT_SECONDS="
            f"{settings.llm_timeout_seconds:g})",
            elapsed_seconds=time.monotonic() - started,
        )
    elapsed = time.monotonic() - started
    cut = getattr(transport, "cut_replies", 0) - probed.probe_cuts
    if not any(check.ok for check in capabilities):
        cause = _cut_warning(cut) if cut else f"check the model name ({target.model}) and the key"
        return replace(
            base,
            capabilities=tuple(capabilities),
            error=f"answered no chat request ({label}): {cause}",
            elapsed_seconds=elapsed,
        )
    profile = probed.profile
    warnings = _profile_warnings(settings, profile, label, cut)
    if not profile.conclusive:
        warnings.append(
            "the server did not answer every probe (rate limited, failing or timing out): "
            "the profile above is assumed and not remembered; run doctor again later"
        )
        remembered = None
    else:
        remembered = _remember(settings, target, profile)
    if remembered is None and profile.conclusive:
        warnings.append(
            f"the profile could not be saved in {settings.data_dir}: each run probes again"
        )
    return replace(
        base,
        capabilities=tuple(capabilities),
        profile=profile,
        context_source=_context_source(settings),
        remembered_in=remembered,
        warnings=tuple(warnings),
        elapsed_seconds=elapsed,
    )


def _cut_warning(cut: int) -> str:
    return (
        f"{cut} probe {'reply' if cut == 1 else 'replies'} ended without a finish reason: "
        "the server cut the stream, so a check above may have failed for that reason "
        "alone. llama-cpp-python's server cuts a streamed reply whenever another request "
        "arrives (start it with --interrupt_requests false); run doctor again when the "
        "server is idle"
    )


def _profile_warnings(settings: Settings, profile: ModelProfile, label: str, cut: int) -> list[str]:
    """What may make runs go worse than the probes promise."""
    warnings = _pin_warnings(settings, profile)
    if cut:
        warnings.append(_cut_warning(cut))
    if profile.structured_output == "text":
        warnings.append(
            "no JSON method returned valid JSON: plans and decisions will be parsed from free "
            "text, which small models often get wrong"
        )
    if label != "api.openai.com" and "model_max_input_tokens" not in settings.model_fields_set:
        warnings.append(
            f"the context window is the default {settings.model_max_input_tokens} tokens: set "
            "MODEL_MAX_INPUT_TOKENS to the server's context length (-c, num_ctx, "
            "--max-model-len, --n_ctx), or long prompts will be refused"
        )
    return warnings


def _remember(settings: Settings, target: LLMTarget, profile: ModelProfile) -> Path | None:
    """Store the profile for later runs; where it was stored, or None when it could not be."""
    from engine.models.compat.profile import (
        PROFILE_CACHE_FILE,
        cache_key,
        load_cached,
        store_detected,
    )

    key = cache_key(target.base_url, target.model)
    store_detected(settings, key, profile)
    return settings.data_dir / PROFILE_CACHE_FILE if key in load_cached(settings) else None


def _context_source(settings: Settings) -> str:
    if "model_max_input_tokens" in settings.model_fields_set:
        return "from MODEL_MAX_INPUT_TOKENS"
    return "the default; MODEL_MAX_INPUT_TOKENS is not set"


def _pin_warnings(settings: Settings, profile: ModelProfile) -> list[str]:
    """Where a pinned setting disagrees with what the probes found."""
    warnings: list[str] = []
    tools = settings.model_tool_calling
    if tools != "auto" and tools != profile.tool_calling:
        if tools == "native":
            found = "no working native tool calls"
            effect = "runs send tools natively as pinned; set it to auto or prompted"
        else:
            found = "native tool calls that work"
            effect = "runs describe tools in the prompt as pinned (that works too)"
        warnings.append(f"MODEL_TOOL_CALLING={tools}, but the probes found {found}: {effect}")
    structured = settings.model_structured_output
    if structured != "auto" and structured != profile.structured_output:
        warnings.append(
            f"MODEL_STRUCTURED_OUTPUT={structured}, but the probes found "
            f"{profile.structured_output}: runs start with {structured} as pinned "
            "(set it to auto to use what was found)"
        )
    return warnings


def _failure_reason(exc: Any) -> str:
    """A short, safe reason for a `ModelCallError` (no provider text, no URL, no key)."""
    from engine.models.compat.errors import describe_failure

    cause = exc.__cause__
    if cause is not None:
        return describe_failure(cause)[0]
    return "failed"


async def _plain_answer(transport: Any) -> CapabilityCheck:
    """One short plain-text request: prompted tool calling needs nothing more than this."""
    from langchain_core.messages import HumanMessage

    from engine.messages import message_text
    from engine.models.compat.errors import ModelCallError

    try:
        reply = await transport.send(
            [HumanMessage(content="Reply with exactly one word: hello")],
            max_tokens=PLAIN_ANSWER_TOKENS,
            retry_server_errors=False,
        )
    except ModelCallError as exc:
        if exc.unreachable:
            raise
        status = f" (HTTP {exc.status})" if exc.status else ""
        return CapabilityCheck("plain text answer", False, f"{REFUSED_DETAIL}{status}")
    text = message_text(reply).strip()
    return CapabilityCheck(
        "plain text answer", bool(text), "answered in text" if text else "empty reply"
    )


def _watched(transport: Any, policy: Any) -> Any:
    """`transport` with `policy`, counting replies whose stream ended without a finish reason.

    Every server this engine talks to ends a complete reply with `finish_reason`; a stream
    that stops without one was cut short (llama-cpp-python does that to a streamed reply as
    soon as another request arrives), so a probe that read it learned nothing reliable.
    """
    from dataclasses import fields

    from engine.models.compat.transport import Transport

    class WatchedTransport(Transport):
        cut_replies: int = 0

        async def send(self, messages: Any, *, max_tokens: int, **request: Any) -> Any:
            from engine.models.compat.errors import ModelCallError

            try:
                return await super().send(messages, max_tokens=max_tokens, **request)
            except ModelCallError as exc:
                if exc.cut_short:
                    self.cut_replies += 1
                raise

    values = {item.name: getattr(transport, item.name) for item in fields(transport)}
    # Probed afresh: what an earlier session learned about taking turns is asked again, not
    # carried into the answer (a server restarted with --interrupt_requests false takes two).
    fresh = {"policy": policy, "one_at_a_time": False, "learned_one_at_a_time": None}
    return WatchedTransport(**{**values, **fresh})
