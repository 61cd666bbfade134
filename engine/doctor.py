"""`deepresearch doctor`: what is configured, what is missing, and whether endpoints answer.

The report is data first (`DoctorReport`) so the CLI prints it and the app's settings screen
renders the same facts. Probes send one request to each configured endpoint and count any HTTP
answer within the timeout as reachable; they never send a key anywhere but its own endpoint.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.config import ROLES, Settings

PROBE_TIMEOUT_SECONDS = 3.0
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
EXA_DEFAULT_BASE_URL = "https://api.exa.ai"
DOCUMENT_SUFFIXES = (".md", ".txt", ".html", ".htm", ".pdf")

Status = Literal["ok", "missing", "error", "info"]


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
class DoctorReport:
    checks: list[Check]
    can_run: bool

    def render(self) -> str:
        marks = {"ok": "ok ", "missing": "-- ", "error": "!! ", "info": "   "}
        lines = ["deepresearch doctor", ""]
        width = max(len(check.name) for check in self.checks)
        for check in self.checks:
            line = f"{marks[check.status]} {check.name.ljust(width)}  {check.detail}"
            if check.disables:
                line += f"\n{' ' * (width + 6)}disables: {check.disables}"
            lines.append(line)
        lines.append("")
        lines.append(
            "A research session can run."
            if self.can_run
            else "A research session cannot run: fix the lines marked !! above."
        )
        return "\n".join(lines)


def _count_documents(folder: Path) -> int:
    return sum(1 for path in folder.rglob("*") if path.suffix.lower() in DOCUMENT_SUFFIXES)


def _endpoints(settings: Settings) -> list[Endpoint]:
    endpoints: list[Endpoint] = []
    seen: set[str] = set()
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    for role in ROLES:
        resolved = settings.role_model(role)
        if resolved.offline:
            continue
        base = resolved.base_url or OPENAI_DEFAULT_BASE_URL
        if base in seen:
            continue
        seen.add(base)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        endpoints.append(Endpoint(f"LLM endpoint ({role})", f"{base}/models", headers))
    if settings.resolved_search_provider == "exa":
        exa_key = settings.exa_api_key.get_secret_value() if settings.exa_api_key else ""
        base = settings.exa_base_url or EXA_DEFAULT_BASE_URL
        endpoints.append(Endpoint("Exa search endpoint", base, {"x-api-key": exa_key}))
    return endpoints


async def _probe(endpoint: Endpoint, timeout: float) -> Check:  # noqa: ASYNC109 - httpx takes it
    import httpx

    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            response = await client.get(endpoint.url, headers=endpoint.headers)
    except httpx.TimeoutException:
        return Check(endpoint.name, "error", f"no answer within {timeout:g} s ({_host(endpoint)})")
    except httpx.HTTPError:
        return Check(endpoint.name, "error", f"unreachable ({_host(endpoint)})")
    note = "answers"
    if response.status_code in (401, 403):
        note = f"answers, but rejects the key (HTTP {response.status_code})"
    elif response.status_code == 404:
        note = "answers, but has no such path (check the base URL)"
    elif response.status_code >= 500:
        note = f"answers with HTTP {response.status_code}"
    status: Status = "ok" if response.status_code not in (401, 403) else "error"
    return Check(endpoint.name, status, f"{note} ({_host(endpoint)})")


def _host(endpoint: Endpoint) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint.url)
    return f"{parts.scheme}://{parts.netloc}"


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
            where = resolved.base_url or OPENAI_DEFAULT_BASE_URL
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

    provider = settings.resolved_search_provider
    if settings.exa_api_key is not None:
        checks.append(Check("EXA_API_KEY", "ok", "set (hidden)"))
    else:
        checks.append(Check("EXA_API_KEY", "missing", "not set", disables="web search through Exa"))
    if provider == "exa" and settings.exa_api_key is None:
        checks.append(Check("search provider", "error", "exa chosen but EXA_API_KEY is missing"))
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
        count = _count_documents(folder) if folder.is_dir() else 0
        if count == 0:
            checks.append(
                Check("search provider", "error", f"local: no documents in {folder} ({label})")
            )
            can_run = False
        else:
            checks.append(
                Check("search provider", "ok", f"local: {count} documents in {folder} ({label})")
            )
    else:
        checks.append(Check("search provider", "ok", "exa"))

    if settings.fetch_allowed_hosts:
        allowed = ", ".join(settings.fetch_allowed_hosts)
        checks.append(Check("FETCH_ALLOWED_HOSTS", "info", f"private hosts allowed: {allowed}"))
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        writable = os.access(settings.data_dir, os.W_OK)
    except OSError:
        writable = False
    if writable:
        checks.append(Check("data directory", "ok", f"{settings.data_dir} (sessions, reports)"))
    else:
        checks.append(Check("DATA_DIR", "error", f"{settings.data_dir} is not writable"))
        can_run = False
    return checks, can_run


async def collect_report_async(settings: Settings, *, probe: bool = True) -> DoctorReport:
    """Static checks, then every configured endpoint probed concurrently."""
    checks, can_run = _static_checks(settings)
    if probe:
        results = await asyncio.gather(
            *(_probe(endpoint, PROBE_TIMEOUT_SECONDS) for endpoint in _endpoints(settings))
        )
        for result in results:
            checks.append(result)
            if result.status == "error":
                can_run = False
    return DoctorReport(checks=checks, can_run=can_run)


def collect_report(settings: Settings, *, probe: bool = True) -> DoctorReport:
    """Synchronous wrapper for the command line."""
    return asyncio.run(collect_report_async(settings, probe=probe))
