"""Configured secrets never enter the session through a model's reply.

A model may repeat what it was sent or what its server put in its context: a key echoed in a
reply would otherwise be copied into tool arguments, evidence, events, the audit and every
checkpoint after it. Each reply is cleaned where it enters the engine, so nothing downstream
ever holds the secret.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from engine.logs import REDACTED
from engine.text_walk import map_strings

T = TypeVar("T")
# Shorter values are not secrets worth a search (and would match ordinary words).
MIN_SECRET_CHARS = 4


def without_secrets(value: T, secrets: Sequence[str]) -> T:
    """`value` (a reply, its tool calls, its JSON) with every secret replaced by REDACTED."""
    wanted = sorted((s for s in secrets if len(s) >= MIN_SECRET_CHARS), key=len, reverse=True)
    if not wanted:
        return value

    def redact(text: str) -> str:
        for secret in wanted:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    return map_strings(value, redact)
