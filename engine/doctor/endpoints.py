"""The endpoints doctor checks, and whether each answers at all.

Each distinct LLM endpoint (base URL and model; roles that share one are checked once) and the
Exa endpoint, when search goes through Exa, are asked once over HTTP: any answer within the
timeout counts as reachable. A key is never sent anywhere but its own endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.config import ROLES, Role, Settings
from engine.doctor.report import Check, Status

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
EXA_DEFAULT_BASE_URL = "https://api.exa.ai"


@dataclass(frozen=True)
class Endpoint:
    """An HTTP endpoint to probe, with the header that authenticates to it."""

    name: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LLMTarget:
    """One distinct LLM endpoint: base URL and model, and the roles that use it."""

    base_url: str | None
    model: str
    roles: tuple[Role, ...]


def llm_targets(settings: Settings) -> list[LLMTarget]:
    """The distinct LLM endpoints of the configured roles (the offline model has none)."""
    grouped: dict[tuple[str | None, str], list[Role]] = {}
    for role in ROLES:
        resolved = settings.role_model(role)
        if resolved.offline:
            continue
        grouped.setdefault((resolved.base_url, resolved.model), []).append(role)
    return [LLMTarget(base, model, tuple(roles)) for (base, model), roles in grouped.items()]


def _auth_headers(settings: Settings) -> dict[str, str]:
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    return {"Authorization": f"Bearer {key}"} if key else {}


def models_endpoint(settings: Settings, target: LLMTarget) -> Endpoint:
    """The target's `GET /models`, with its key."""
    base = target.base_url or OPENAI_DEFAULT_BASE_URL
    return Endpoint("LLM endpoint", f"{base}/models", _auth_headers(settings))


def exa_endpoint(settings: Settings) -> Endpoint | None:
    """Exa's endpoint with its key, when search goes through Exa."""
    if settings.resolved_search_provider != "exa":
        return None
    exa_key = settings.exa_api_key.get_secret_value() if settings.exa_api_key else ""
    base = settings.exa_base_url or EXA_DEFAULT_BASE_URL
    return Endpoint("Exa search endpoint", base, {"x-api-key": exa_key})


async def check_reachable(
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
    return _answered(endpoint, response.status_code)


def _answered(endpoint: Endpoint, status_code: int) -> Check:
    """What an HTTP answer with this status says about the endpoint."""
    note = "answers GET /models" if endpoint.url.endswith("/models") else "answers"
    if status_code in (401, 403):
        note = f"answers, but rejects the key (HTTP {status_code})"
    elif status_code == 404:
        note = "answers, but has no such path (check the base URL)"
    elif status_code >= 500:
        note = f"answers with HTTP {status_code}"
    status: Status = "ok" if status_code not in (401, 403) else "error"
    return Check(endpoint.name, status, f"{note} ({_host(endpoint)})")


def _host(endpoint: Endpoint) -> str:
    from engine.models.compat.profile import endpoint_label

    return endpoint_label(endpoint.url)
