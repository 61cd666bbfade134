"""A section ends once it holds the sentences it may keep, not when the model runs out of words.

The writer keeps a section's first few claims and its summary's first few; the rest are
dropped. A small model often goes on well past them (restating a passage, then the next), and
every token it writes is generated one at a time: seconds on a CPU server, for sentences the
engine throws away. So the reply is watched while it streams and ended once it has completed
as many claims as will be kept; a structured reply cut there is read up to its last complete
claim (engine.models.compat.structured).
"""

from __future__ import annotations

from engine.models.compat.json_text import array_objects_closed
from engine.models.compat.reply_watch import ReplyWatch
from engine.text.sentences import PROSE_SENTENCE_BREAK_RE


def claims_complete(limit: int) -> ReplyWatch:
    """A watch that fires once the reply has completed `limit` claims: objects of its JSON
    list when it is JSON, sentences when it is prose."""

    def said(text: str) -> bool:
        if text.lstrip().startswith(("{", "```")):
            return array_objects_closed(text) >= limit
        # The sentence after the last kept one has begun: everything kept is complete.
        return len(PROSE_SENTENCE_BREAK_RE.findall(text)) >= limit

    return said
