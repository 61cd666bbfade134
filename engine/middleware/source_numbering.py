"""One number per source across a researcher's searches, so `[3]` names one source.

Every search numbers its results from 1; after two searches a model's `[1]` could mean either
first result, and the findings' sources would be listed wrong. Before each model call the
unit's search results are renumbered to continue one numbering (a source seen before keeps
its number), as the quick path does. Renumbering is idempotent, so it starts from the first
result every time and replaces only the messages whose text changed.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import BaseMessage

from engine.messages import message_text
from engine.sourcing.source_numbers import SourceCatalog, renumber


def renumbered_changes(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The messages whose search results read differently under one numbering."""
    updated = renumber(messages, SourceCatalog({}))
    return [
        new
        for old, new in zip(messages, updated, strict=True)
        if new is not old and message_text(new) != message_text(old) and old.id
    ]


class SourceNumberingMiddleware(AgentMiddleware):
    """Renumbers a researcher's search results before each model call."""

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        changed = renumbered_changes(list(state.get("messages") or []))
        return {"messages": changed} if changed else None

    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_model(state, runtime)
