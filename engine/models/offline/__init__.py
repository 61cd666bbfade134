"""The offline extractive model: a deterministic chat model that plays every role by rule.

`OfflineChatModel` (model.py) is the LangChain chat model; `policy.respond` is the whole
decision, which the OpenAI-compatible test server calls too. What a call is for (its role's
inputs: the question, the plan, a section's input) comes with the call as data
(engine.model_task), never from the prompt's wording. The roles live beside it: scoping and
plans (plan.py, revision.py), research and supervision (research.py), report sections
(section_writer.py); what they read and quote comes from conversation.py, sources.py,
passages.py, extract.py, rank.py, facts.py and text.py.

The chat model is loaded on first use: the text primitives (`engine.models.offline.text`) are
shared with the reranker, which must not pay for LangChain's chat model classes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.models.offline.model import (
        OFFLINE_MODEL_NAME,
        OfflineChatModel,
        text_pieces,
        usage_for,
    )

_EXPORTS = frozenset({"OFFLINE_MODEL_NAME", "OfflineChatModel", "text_pieces", "usage_for"})

__all__ = ["OFFLINE_MODEL_NAME", "OfflineChatModel", "text_pieces", "usage_for"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'engine.models.offline' has no attribute {name!r}")
    value = getattr(importlib.import_module("engine.models.offline.model"), name)
    globals()[name] = value
    return value
