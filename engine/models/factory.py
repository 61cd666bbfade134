"""One chat model per graph role: the offline extractive model or an OpenAI-compatible server.

Imports are deferred to the call so that importing the engine stays cheap. Every real server
is reached through `CompatChatModel`, which owns retries, output caps, context fitting and
reply normalization; the client's own retries are off. Roles that share an endpoint share
its profile and its token estimator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.config import Role, RoleModel, Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# Servers that need no key (a local vLLM or Ollama) still need a non-empty string for the client.
PLACEHOLDER_API_KEY = "not-needed"
LOCAL_TEMPERATURE = 0.2


def make_client(settings: Settings, role: Role, role_model: RoleModel | None = None) -> Any:
    """The raw `ChatOpenAI` client for a role's endpoint (or for one of its fallbacks)."""
    import httpx
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from engine.models.compat.profile import is_openai

    role_model = role_model or settings.role_model(role)
    key = settings.openai_api_key or SecretStr(PLACEHOLDER_API_KEY)
    # Servers' own defaults run hot (0.8); research wants the likeliest reading. OpenAI's
    # defaults are kept: some of its models refuse any temperature.
    temperature = None if is_openai(role_model.base_url) else LOCAL_TEMPERATURE
    return ChatOpenAI(
        temperature=temperature,
        model=role_model.model,
        base_url=role_model.base_url,
        api_key=key,
        timeout=settings.llm_timeout_seconds,
        max_retries=0,
        streaming=True,
        stream_usage=True,
        # The request timeout (sized to the prompt by the transport) bounds silence; the
        # client's own 120 s chunk timer would cut a small model still reading a long prompt.
        stream_chunk_timeout=None,
        # A connection pool of its own: langchain-openai shares one per process, and a
        # kept-alive connection from an event loop that has ended fails the next session
        # run in the same process (a benchmark, a test, a program embedding the engine).
        http_async_client=httpx.AsyncClient(timeout=settings.llm_timeout_seconds),
    )


def make_endpoint(settings: Settings, role: Role, role_model: RoleModel | None = None) -> Any:
    """The shared state of a role's endpoint: transport, profile and how to detect it."""
    from engine.middleware.retry import RetryPolicy
    from engine.models.compat.chat import Endpoint
    from engine.models.compat.probe import detect_profile
    from engine.models.compat.profile import (
        cache_key,
        configured_profile,
        endpoint_label,
        is_openai,
        store_detected,
        store_one_at_a_time,
        with_pinned,
    )
    from engine.models.compat.transport import Transport

    role_model = role_model or settings.role_model(role)
    transport = Transport(
        client=make_client(settings, role, role_model),
        role=role,
        endpoint=endpoint_label(role_model.base_url),
        context_window=settings.model_max_input_tokens,
        timeout_seconds=settings.llm_timeout_seconds,
        plain_max_tokens=not is_openai(role_model.base_url),
        policy=RetryPolicy(max_retries=settings.llm_max_retries),
    )
    key = cache_key(role_model.base_url, role_model.model)

    async def detect(probe_transport: Any) -> Any:
        return await detect_profile(probe_transport, settings.model_max_input_tokens)

    return Endpoint(
        transport=transport,
        profile=configured_profile(settings, role, role_model),
        detect=detect,
        remember=lambda profile: store_detected(settings, key, profile),
        remember_one_at_a_time=lambda: store_one_at_a_time(settings, key),
        pin=lambda profile: with_pinned(profile, settings),
    )


def make_chat_model(
    settings: Settings, role: Role, *, endpoints: dict[str, Any] | None = None
) -> BaseChatModel:
    """The chat model for `role`, as the settings configure it.

    `endpoints` (keyed by base URL and model) lets the roles of one engine share what was
    learned about a server; a role with its own endpoint gets its own.
    """
    role_model = settings.role_model(role)
    if role_model.offline:
        from engine.models.offline import OfflineChatModel

        return OfflineChatModel()
    shared = endpoints if endpoints is not None else {}
    primary = _compat_model(settings, role_model, shared)
    primary.fallbacks = [
        _compat_model(settings, fallback, shared)
        for fallback in settings.fallbacks_for(role)
        if not fallback.offline
    ]
    return primary


def _compat_model(settings: Settings, role_model: RoleModel, shared: dict[str, Any]) -> Any:
    from engine.logs import secrets_of
    from engine.models.compat.chat import CompatChatModel
    from engine.models.compat.profile import cache_key

    key = cache_key(role_model.base_url, role_model.model)
    if key not in shared:
        shared[key] = make_endpoint(settings, role_model.role, role_model)
    return CompatChatModel(
        role=role_model.role,
        model_name=role_model.model,
        endpoint=shared[key],
        output_ceiling=settings.model_max_output_tokens,
        secrets=tuple(secrets_of(settings)),
    )
