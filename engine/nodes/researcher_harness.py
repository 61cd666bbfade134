"""What the researcher's model sees besides its prompt: its tools and its context window.

deepagents gives every agent a virtual filesystem (ls, read_file, write_file, edit_file, glob,
grep, execute) and a `task` tool that starts a general-purpose subagent. A researcher needs
none of them, and `task` would run searches outside the unit's budget and registry. deepagents'
supported switch is a harness profile keyed by the model's provider and name: it hides the
tools from every model request (and refuses calls to them) and drops the subagent. The profile
is registered when the researcher is compiled, never at import.

deepagents sizes its summarization from the model's profile; a model name it does not know
(most local models) has none, and summarization would wait for 170k tokens. The researcher's
model therefore carries `max_input_tokens` from the settings.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from engine.config import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

# The general-purpose subagent's tool; the filesystem tools are asked of deepagents itself.
SUBAGENT_TOOL = "task"


@cache
def hidden_harness_tools() -> frozenset[str]:
    """Every tool deepagents adds on its own (`write_todos` comes from our TodoListMiddleware).

    Read from deepagents' filesystem middleware rather than listed by hand, so a tool a
    deepagents release adds is hidden too.
    """
    from deepagents.backends import StateBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware

    filesystem = FilesystemMiddleware(backend=StateBackend())
    return frozenset({tool.name for tool in filesystem.tools} | {SUBAGENT_TOOL})


def researcher_model(model: BaseChatModel, settings: Settings) -> BaseChatModel:
    """A copy of `model` whose profile states the configured context window.

    A copy, so the model other roles share keeps its own profile; the copy shares the client.
    """
    profile: dict[str, Any] = dict(model.profile or {})
    profile["max_input_tokens"] = settings.model_max_input_tokens
    return model.model_copy(update={"profile": profile})


def harness_profile_key(model: BaseChatModel) -> str | None:
    """The key deepagents looks the model's harness profile up by (None: not resolvable)."""
    from deepagents._models import get_model_identifier, get_model_provider

    provider = get_model_provider(model)
    identifier = get_model_identifier(model)
    if provider and identifier:
        return f"{provider}:{identifier}"
    return provider or None


def register_researcher_harness(model: BaseChatModel) -> None:
    """Register the researcher's harness profile for `model`; re-registering is harmless.

    Raises:
        ValueError: when deepagents cannot resolve a profile key for the model, since the
            researcher would then silently get the filesystem and `task` tools.
    """
    from deepagents import (
        GeneralPurposeSubagentProfile,
        HarnessProfile,
        register_harness_profile,
    )

    key = harness_profile_key(model)
    if key is None:
        raise ValueError(f"cannot key a harness profile for {type(model).__name__}")
    register_harness_profile(
        key,
        HarnessProfile(
            excluded_tools=hidden_harness_tools(),
            general_purpose_subagent=GeneralPurposeSubagentProfile(enabled=False),
        ),
    )
