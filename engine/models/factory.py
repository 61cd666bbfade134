"""One chat model per graph role: the offline extractive model or an OpenAI-compatible server.

Imports are deferred to the call so that importing the engine stays cheap. Retries belong to
the middleware (`engine.middleware.retry`), so the client's own retries are off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.config import Role, Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# Servers that need no key (a local vLLM or Ollama) still need a non-empty string for the client.
PLACEHOLDER_API_KEY = "not-needed"


def make_chat_model(settings: Settings, role: Role) -> BaseChatModel:
    """The chat model for `role`, as the settings configure it."""
    role_model = settings.role_model(role)
    if role_model.offline:
        from engine.models.offline import OfflineChatModel

        return OfflineChatModel()
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    key = settings.openai_api_key or SecretStr(PLACEHOLDER_API_KEY)
    return ChatOpenAI(
        model=role_model.model,
        base_url=role_model.base_url,
        api_key=key,
        timeout=settings.llm_timeout_seconds,
        max_retries=0,
        stream_usage=True,
    )
