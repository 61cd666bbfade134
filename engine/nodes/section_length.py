"""A section ends once it holds the sentences it may keep, not when the model runs out of words.

The writer keeps a section's first few claims and its summary's first few; the rest are
dropped. A small model often goes on well past them (restating a passage, then the next), and
every token it writes is generated one at a time: seconds on a CPU server, for sentences the
engine throws away. So the reply is watched while it streams and ended once it has completed
as many claims as will be kept, counted the way the reply will be read: objects of its JSON
list when JSON was asked for (a preamble's sentences are not claims), the prose reader's own
claims otherwise. Reasoning (`<think>…`) is no claim: a reply still thinking is never ended.
A structured reply cut there is read up to its last complete claim
(engine.models.compat.structured).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.models.compat.json_text import array_objects_closed
from engine.models.compat.normalize import strip_reasoning
from engine.models.compat.reply_watch import ReplyWatch
from engine.schemas import Claim


def claims_complete(
    limit: int, *, structured: bool, read_prose: Callable[[str], list[Claim]]
) -> ReplyWatch:
    """A watch that fires once the reply has completed `limit` claims."""

    def said(text: str) -> bool:
        answer = strip_reasoning(text)
        if structured:
            return array_objects_closed(answer) >= limit
        # The claim after the last kept one has begun: every kept one is complete.
        return len(read_prose(answer)) > limit

    return said
