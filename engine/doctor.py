"""`deepresearch doctor`: what is configured, what is missing, and what each endpoint can do.

The report is data first (`DoctorReport`) so the CLI prints it and the app's settings screen
renders the same facts. Each configured endpoint is first asked `GET /models` (any HTTP answer
within a few seconds counts as reachable); then each distinct LLM endpoint (base URL and
model; roles that share one are probed once) gets the capability probes a run would
otherwise send on its first call: one tool call, one plain answer with tools bound, and one
JSON reply per structured-output method. What they find is the endpoint's model profile,
stored under the data directory so runs reuse it. Messages name an endpoint by host:port
only, and a key is never sent anywhere but its own endpoint.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from engine.config import ROLES, Role, Settings
from engine.data_dir import DataDirError, prepare_data_dir
from engine.preflight import search_setup_problem

if TYPE_CHECKING:
    from engine.models.compat.profile import ModelProfile

PROBE_TIMEOUT_SECONDS = 3.0
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
EXA_DEFAULT_BASE_URL = "https://api.exa.ai"
# What `probe_endpoint` writes for a request the server refused outright.
REFUSED_DETAIL = "refused the request"
PLAIN_ANSWER_TOKENS = 16

Status = Literal["ok", "missing", "error", "info", "warn"]
_MARKS: dict[Status, str] = {
    "ok": "ok ",
    "missing": "-- ",
    "error": "!! ",
    "info": "   ",
    "warn": "!  ",
}


@dataclass(frozen=True)
class Check:
    """One line of the report: a fact, and what its absence disables."""

    name: str
    status: Status
    detail: str
    disables: str = ""


@dataclass(frozen=True)
class Endpoint:
    """An HTTP endpoint to probe, with the header that authenticates to it."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CapabilityCheck:
    """One capability probe: what was asked, whether it worked, and what came back."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class EndpointReport:
    """Everything doctor learned about one LLM endpoint (base URL + model)."""

    label: str  # host:port, never a path, user or key
    model: str
    roles: tuple[Role, ...]
    reachable: Check
    capabilities: tuple[CapabilityCheck, ...] = ()
    profile: ModelProfile | None = None
    context_source: str = ""
    remembered_in: Path | None = None
    warnings: tuple[str, ...] = ()
    error: str = ""
    elapsed_seconds: float | None = None

    @property
    def usable(self) -> bool:
        """Reachable, probed, and it answered: a session can run against it."""
        answered = self.reachable.status in ("ok", "warn")
        return answered and self.profile is not None and not self.error

    def profile_line(self) -> str:
        if self.profile is None:
            return ""
        return (
            f"tools: {self.profile.tool_calling}, JSON: {self.profile.structured_output}, "
            f"context {self.profile.context_window} tokens ({self.context_source})"
        )

    def render(self) -> list[str]:
        roles = ", ".join(self.roles)
        lines = [f"LLM endpoint {self.label}, model {self.model} (used by {roles})"]
        rows: list[tuple[Status, str, str]] = [
            (self.reachable.status, "reachable", self.reachable.detail)
        ]
        for check in self.capabilities:
            verdict = "yes" if check.ok else "no "
            rows.append(("ok" if check.ok else "missing", check.name, f"{verdict}  {check.detail}"))
        if self.error:
            rows.append(("error", "probe", self.error))
        if self.profile is not None:
            rows.append(("info", "profile", self.profile_line()))
        width = max(len(name) for _, name, _ in rows)
        lines.extend(
            f"  {_MARKS[status]} {name.ljust(width)}  {text}" for status, name, text in rows
        )
        if self.remembered_in is not None:
            lines.append(f"      remembered for later runs in {self.remembered_in}")
        lines.extend(f"  {_MARKS['warn']} {warning}" for warning in self.warnings)
        if self.elapsed_seconds is not None:
            lines.append(f"      checked in {self.elapsed_seconds:.1f} s")
        return lines


@dataclass(frozen=True)
class DoctorReport:
    checks: list[Check]
    can_run: bool
    endpoints: list[EndpointReport] = field(default_factory=list)

    def render(self) -> str:
        lines = ["deepresearch doctor", ""]
        width = max(len(check.name) for check in self.checks)
        for check in self.checks:
            line = f"{_MARKS[check.status]} {check.name.ljust(width)}  {check.detail}"
            if check.disables:
                line += f"\n{' ' * (width + 6)}disables: {check.disables}"
            lines.append(line)
        for endpoint in self.endpoints:
            lines.append("")
            lines.extend(endpoint.render())
        lines.append("")
        lines.append(
            "A research session can run."
            if self.can_run
            else "A research session cannot run: fix the lines marked !! above."
        )
        return "\n".join(lines)


# Skipped documents named one by one, up to this many (then a count of the rest).
MAX_NAMED_SKIPS = 5


def _document_checks(folder: Path, label: str) -> tuple[list[Check], bool]:
    """The local provider's line, then one warning per document that will be skipped."""
    from engine.tools.document_scan import scan_folder

    scan = scan_folder(folder) if folder.is_dir() else None
    count = len(scan.files) if scan else 0
    if count == 0:
        checks = [Check("search provider", "error", f"local: no documents in {folder} ({label})")]
    else:
        checks = [Check("search provider", "ok", f"local: {count} documents in {folder} ({label})")]
    skips = scan.warnings if scan else []
    checks.extend(Check("documents", "warn", skip) for skip in skips[:MAX_NAMED_SKIPS])
    if len(skips) > MAX_NAMED_SKIPS:
        checks.append(Check("documents", "warn", f"and {len(skips) - MAX_NAMED_SKIPS} more"))
    return checks, count > 0


@dataclass(frozen=True)
class _LLMTarget:
    """One distinct LLM endpoint: base URL and model, and the roles that use it."""

    base_url: str | None
    model: str
    roles: tuple[Role, ...]


def _llm_targets(settings: Settings) -> list[_LLMTarget]:
    grouped: dict[tuple[str | None, str], list[Role]] = {}
    for role in ROLES:
        resolved = settings.role_model(role)
        if resolved.offline:
            continue
        grouped.setdefault((resolved.base_url, resolved.model), []).append(role)
    return [_LLMTarget(base, model, tuple(roles)) for (base, model), roles in grouped.items()]


def _auth_headers(settings: Settings) -> dict[str, str]:
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    return {"Authorization": f"Bearer {key}"} if key else {}


def _models_endpoint(settings: Settings, target: _LLMTarget) -> Endpoint:
    base = target.base_url or OPENAI_DEFAULT_BASE_URL
    return Endpoint("LLM endpoint", f"{base}/models", _auth_headers(settings))


def _exa_endpoint(settings: Settings) -> Endpoint | None:
    if settings.resolved_search_provider != "exa":
        return None
    exa_key = settings.exa_api_key.get_secret_value() if settings.exa_api_key else ""
    base = settings.exa_base_url or EXA_DEFAULT_BASE_URL
    return Endpoint("Exa search endpoint", base, {"x-api-key": exa_key})


async def _probe(
    endpoint: Endpoint,
    timeout: float,  # noqa: ASYNC109 - httpx takes it
    *,
    busy_is_a_warning: bool = False,
) -> Check:
    """GET the endpoint. With `busy_is_a_warning`, a server that accepted the connection but
    did not answer in time is a warning, not an error: llama-cpp-python answers `GET /models`
    only between generations, so a busy server looks hung for as long as it generates."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            response = await client.get(endpoint.url, headers=endpoint.headers)
    except httpx.ReadTimeout:
        if busy_is_a_warning:
            return Check(
                endpoint.name,
                "warn",
                f"connected, but no answer within {timeout:g} s to GET /models (busy with "
                f"another request?); probing with LLM_TIMEOUT_SECONDS ({_host(endpoint)})",
            )
        return Check(endpoint.name, "error", f"no answer within {timeout:g} s ({_host(endpoint)})")
    except httpx.TimeoutException:
        return Check(endpoint.name, "error", f"no answer within {timeout:g} s ({_host(endpoint)})")
    except httpx.HTTPError:
        return Check(endpoint.name, "error", f"unreachable ({_host(endpoint)})")
    note = "answers GET /models" if endpoint.url.endswith("/models") else "answers"
    if response.status_code in (401, 403):
        note = f"answers, but rejects the key (HTTP {response.status_code})"
    elif response.status_code == 404:
        note = "answers, but has no such path (check the base URL)"
    elif response.status_code >= 500:
        note = f"answers with HTTP {response.status_code}"
    status: Status = "ok" if response.status_code not in (401, 403) else "error"
    return Check(endpoint.name, status, f"{note} ({_host(endpoint)})")


def _host(endpoint: Endpoint) -> str:
    from engine.models.compat.profile import endpoint_label

    return endpoint_label(endpoint.url)


def _without_userinfo(url: str) -> str:
    """The URL without a `user:password@` part, which may hold a secret."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


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
    return WatchedTransport(**{**values, "policy": policy})


async def _probe_capabilities(
    settings: Settings, target: _LLMTarget, reachable: Check, started: float
) -> EndpointReport:
    from engine.middleware.retry import RetryPolicy
    from engine.models.compat.errors import ModelCallError
    from engine.models.compat.probe import probe_endpoint
    from engine.models.compat.profile import (
        PROFILE_CACHE_FILE,
        cache_key,
        endpoint_label,
        load_cached,
        store_detected,
    )
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
    cut = getattr(transport, "cut_replies", 0)
    cut_warning = (
        f"{cut} probe {'reply' if cut == 1 else 'replies'} ended without a finish reason: "
        "the server cut the stream, so a check above may have failed for that reason "
        "alone. llama-cpp-python's server cuts a streamed reply whenever another request "
        "arrives (start it with --interrupt_requests false); run doctor again when the "
        "server is idle"
    )
    if not any(check.ok for check in capabilities):
        cause = cut_warning if cut else f"check the model name ({target.model}) and the key"
        return replace(
            base,
            capabilities=tuple(capabilities),
            error=f"answered no chat request ({label}): {cause}",
            elapsed_seconds=elapsed,
        )
    profile = probed.profile
    warnings = _pin_warnings(settings, profile)
    if cut:
        warnings.append(cut_warning)
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
    key = cache_key(target.base_url, target.model)
    store_detected(settings, key, profile)
    remembered = settings.data_dir / PROFILE_CACHE_FILE if key in load_cached(settings) else None
    if remembered is None:
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


def _static_checks(settings: Settings) -> tuple[list[Check], bool]:
    checks: list[Check] = []
    can_run = True
    for role in ROLES:
        resolved = settings.role_model(role)
        if resolved.offline:
            checks.append(
                Check(
                    f"{role} model",
                    "info",
                    "offline extractive model (quotes retrieved sentences; no LLM)",
                )
            )
        else:
            where = _without_userinfo(resolved.base_url or OPENAI_DEFAULT_BASE_URL)
            checks.append(Check(f"{role} model", "ok", f"{resolved.model} at {where}"))
    uses_openai = any(
        not settings.role_model(role).offline and settings.role_model(role).base_url is None
        for role in ROLES
    )
    if settings.openai_api_key is not None:
        checks.append(Check("OPENAI_API_KEY", "ok", "set (hidden)"))
    elif uses_openai:
        checks.append(Check("OPENAI_API_KEY", "error", "missing, but a model uses api.openai.com"))
        can_run = False
    else:
        checks.append(
            Check(
                "OPENAI_API_KEY",
                "missing",
                "not set",
                disables="LLM-written plans and reports (the offline extractive model is used)",
            )
        )
    pins = [
        f"{name}={value}"
        for name, value in (
            ("MODEL_TOOL_CALLING", settings.model_tool_calling),
            ("MODEL_STRUCTURED_OUTPUT", settings.model_structured_output),
        )
        if value != "auto"
    ]
    if pins and not settings.offline:
        checks.append(Check("model profile", "info", "pinned: " + ", ".join(pins)))

    provider = settings.resolved_search_provider
    if settings.exa_api_key is not None:
        checks.append(Check("EXA_API_KEY", "ok", "set (hidden)"))
    else:
        checks.append(Check("EXA_API_KEY", "missing", "not set", disables="web search through Exa"))
    search_problem = search_setup_problem(settings)
    if search_problem is not None:
        checks.append(Check("search provider", "error", search_problem))
        can_run = False
    elif provider == "none":
        checks.append(
            Check(
                "search provider",
                "info",
                "none: researchers only fetch URLs named in the question",
                disables="searching",
            )
        )
    elif provider == "local":
        folder = settings.resolved_documents_path
        label = "DOCUMENTS_PATH" if settings.documents_path else "bundled sample corpus"
        document_checks, has_documents = _document_checks(folder, label)
        checks.extend(document_checks)
        can_run = can_run and has_documents
    else:
        checks.append(Check("search provider", "ok", "exa"))

    if settings.fetch_allowed_hosts:
        allowed = ", ".join(settings.fetch_allowed_hosts)
        checks.append(Check("FETCH_ALLOWED_HOSTS", "info", f"private hosts allowed: {allowed}"))
    try:
        prepare_data_dir(settings)
    except DataDirError as exc:
        checks.append(Check("DATA_DIR", "error", str(exc).removeprefix("DATA_DIR=")))
        can_run = False
    else:
        checks.append(
            Check("data directory", "ok", f"{settings.data_dir} (sessions, reports; private)")
        )
    return checks, can_run


async def collect_report_async(
    settings: Settings,
    *,
    probe: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DoctorReport:
    """Static checks; with `probe`, every endpoint's reachability, then each LLM's capabilities.

    Reachability is checked concurrently (a few seconds at most). Capability probes run one
    endpoint at a time, since endpoints often share one small server, each request within
    `LLM_TIMEOUT_SECONDS`. `progress` hears one line as each endpoint's probes begin.
    """
    checks, can_run = _static_checks(settings)
    if not probe:
        return DoctorReport(checks=checks, can_run=can_run)
    from engine.models.compat.profile import endpoint_label

    targets = _llm_targets(settings)
    exa = _exa_endpoint(settings)
    started = time.monotonic()
    reachability = await asyncio.gather(
        *(
            _probe(_models_endpoint(settings, t), PROBE_TIMEOUT_SECONDS, busy_is_a_warning=True)
            for t in targets
        ),
        *([_probe(exa, PROBE_TIMEOUT_SECONDS)] if exa is not None else []),
    )
    if exa is not None:
        exa_check = reachability[-1]
        checks.append(exa_check)
        can_run = can_run and exa_check.status != "error"
    reports: list[EndpointReport] = []
    for target, reachable in zip(targets, reachability, strict=False):
        label = endpoint_label(target.base_url)
        if reachable.status not in ("ok", "warn"):
            reports.append(
                EndpointReport(
                    label,
                    target.model,
                    target.roles,
                    reachable,
                    elapsed_seconds=time.monotonic() - started,
                )
            )
            continue
        if progress is not None:
            progress(f"probing {label} (model {target.model}): a few small requests…")
        reports.append(await _probe_capabilities(settings, target, reachable, time.monotonic()))
    can_run = can_run and all(report.usable for report in reports)
    return DoctorReport(checks=checks, can_run=can_run, endpoints=reports)


def collect_report(
    settings: Settings,
    *,
    probe: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DoctorReport:
    """Synchronous wrapper for the command line."""
    return asyncio.run(collect_report_async(settings, probe=probe, progress=progress))
