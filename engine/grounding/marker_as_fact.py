"""A citation written where the fact should be: "The minimum version is [1]."

Small models answer "which version…" and "which function…" with a sentence whose object is a
citation marker: the fact itself is missing ("… bundled in Node.js 24 is [7].", the model's
way of writing 7.x) or the sentence only lists sources ("The results are from [1], [2], and
[3]."). With its markers taken out, such a sentence ends on a word that cannot end a
statement, so it states nothing a source could support, and kept it would read as an answer
that says nothing. It is removed like a sentence its sources do not support.

A marker after a preposition that points at a source ("as described in [1]", "see [2]")
is not one: the sentence's claim stands before it.
"""

from __future__ import annotations

import re

from engine.grounding.claims import strip_markers

MARKER_AS_FACT = "its citation stands where its fact should be: it states nothing"
# Words a statement cannot end on: the verb or article whose object the marker took.
_DANGLING = frozenset({"is", "are", "was", "were", "be", "been", "being", "the", "a", "an", "from"})
_TAIL = re.compile(r"[\s,;:.!?*_`'\"()]+$")
_LAST_WORD = re.compile(r"(\w+)$")
# Joining words left between markers ("[1], [2], and [3]") once the markers are gone.
_JOINERS = re.compile(r"(?:[\s,;]+(?:and|or|&))+$", re.IGNORECASE)


def marker_stands_for_fact(sentence: str) -> bool:
    """Whether `sentence` cites a source in the place of what it should state."""
    return dangling_word(sentence) is not None


def lists_only_sources(sentence: str) -> bool:
    """Whether such a sentence only says where its text came from ("… are from [1], [2]."),
    rather than leaving out a fact."""
    return dangling_word(sentence) == "from"


def dangling_word(sentence: str) -> str | None:
    """The word a statement cannot end on that `sentence` ends on once its markers are out
    (lower case), or None when it ends as a statement does or cites nothing."""
    stripped = strip_markers(sentence)
    if stripped == sentence:
        return None
    text = _TAIL.sub("", _JOINERS.sub("", _TAIL.sub("", stripped)))
    last = _LAST_WORD.search(text)
    word = last.group(1).lower() if last is not None else ""
    return word if word in _DANGLING else None
