"""Finding an OpenAI-compatible model server already running on this machine.

On a first start with no model endpoint configured, the app and `deepresearch doctor` ask the
usual local ports (Ollama, llama.cpp, LM Studio, vLLM) for `GET /v1/models` on 127.0.0.1
only, each within a fraction of a second. Discovery only lists models: no prompt and no key is
ever sent, and nothing is used until the person chooses it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.config import Settings

LOOPBACK = "127.0.0.1"
# The port each server listens on by default, and the name it is known by there.
USUAL_PORTS: tuple[tuple[int, str], ...] = (
    (11434, "Ollama"),
    (8080, "llama.cpp"),
    (8081, "llama.cpp"),
    (1234, "LM Studio"),
    (8000, "vLLM"),
)
DISCOVERY_TIMEOUT_SECONDS = 0.6
MAX_MODELS_SHOWN = 20
_MAX_MODEL_NAME = 120


@dataclass(frozen=True)
class LocalServer:
    """A server that answered `GET /v1/models` with a list of models."""

    port: int
    usual_for: str  # the server this port usually belongs to ("Ollama"): a guess, said so
    models: tuple[str, ...]

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def label(self) -> str:
        return f"{LOOPBACK}:{self.port} ({self.usual_for}'s usual port)"

    def settings(self, model: str | None = None) -> dict[str, str]:
        """The settings that select this server and model, as the setup form writes them."""
        return {
            "ORCHESTRATOR_BASE_URL": self.base_url,
            "ORCHESTRATOR_MODEL": model or self.models[0],
        }

    def describe(self) -> str:
        shown = ", ".join(self.models[:3]) + (", …" if len(self.models) > 3 else "")
        noun = "model" if len(self.models) == 1 else "models"
        return f"{self.label}: {len(self.models)} {noun} ({shown})"


def wants_discovery(settings: Settings) -> bool:
    """No endpoint configured and no explicit choice of the offline model: worth a look."""
    return settings.orchestrator_model is None and not settings.llm_endpoint_configured


def model_names(payload: Any) -> tuple[str, ...]:
    """The model ids of an OpenAI `GET /models` answer, made safe to show; () if not one."""
    from engine.terminal_text import one_line

    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return ()
    names: list[str] = []
    for entry in data:
        model = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(model, str) and one_line(model):
            names.append(one_line(model)[:_MAX_MODEL_NAME])
    return tuple(dict.fromkeys(names))[:MAX_MODELS_SHOWN]


async def _ask(client: Any, port: int, usual_for: str) -> LocalServer | None:
    import httpx

    try:
        response = await client.get(f"http://{LOOPBACK}:{port}/v1/models")
        payload = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    models = model_names(payload)
    return LocalServer(port, usual_for, models) if models else None


async def discover_local_servers(
    ports: tuple[tuple[int, str], ...] = USUAL_PORTS,
    *,
    timeout: float = DISCOVERY_TIMEOUT_SECONDS,  # noqa: ASYNC109 - httpx takes it
) -> list[LocalServer]:
    """Every port in `ports` that answers with models, in the order given; all asked at once."""
    import httpx

    # No proxy from the environment: the request must go to this machine and nowhere else.
    async with httpx.AsyncClient(
        timeout=timeout, follow_redirects=False, trust_env=False
    ) as client:
        found = await asyncio.gather(*(_ask(client, port, name) for port, name in ports))
    return [server for server in found if server is not None]
