"""What the offline policy answers: text and/or tool calls, with deterministic call ids."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from engine.models.offline.conversation import dumps_args


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the model decided to make."""

    name: str
    args: dict[str, Any]
    id: str


@dataclass(frozen=True)
class OfflineReply:
    """One model turn: the text and the tool calls, in order."""

    content: str = ""
    tool_calls: tuple[PlannedCall, ...] = field(default_factory=tuple)
    role: str = "reply"


def make_calls(turn: int, calls: list[tuple[str, dict[str, Any]]]) -> tuple[PlannedCall, ...]:
    """Tool calls with ids derived from the turn and arguments: same input, same ids."""
    planned = []
    for index, (name, args) in enumerate(calls):
        digest = hashlib.sha1(
            f"{turn}:{index}:{name}:{dumps_args(args)}".encode(), usedforsecurity=False
        ).hexdigest()[:24]
        planned.append(PlannedCall(name=name, args=args, id=f"call_{digest}"))
    return tuple(planned)
