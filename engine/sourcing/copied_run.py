"""A reply that copies a passage it was shown, at more length than any finding quotes.

Asked for short findings that quote or restate its passages, the bundled 1.5B sometimes
writes the passages out again, reshaped so that no header line gives it away ("- [1] [25.1.
Routine Vacuuming]. - autovacuum_vacuum_cost_limit (integer) - …"), passage after passage to
its token cap: 850 to 1,000 tokens, about ninety seconds on a CPU server, for text the engine
holds already. Whatever its shape, such a reply repeats a passage's words in order for far
longer than a finding does, so a copy is told by its content: a run of `MIN_RUN_WORDS` words
of the reply, in order, that a passage holds in that order too. Punctuation, line breaks,
list dashes, case and citation markers do not count, as a model re-wraps them freely.

The threshold sits above what a finding quotes: over the bundled documentation corpora, 99 % of
sentences are under 67 words and 95 % under 41, and a finding quotes one sentence, two at most.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.text.markers import NUMBERED_MARKER_RE

MIN_RUN_WORDS = 60

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(NUMBERED_MARKER_RE.sub(" ", text))]


class CopiedRun:
    """Finds where a reply starts copying one of `passages` at length. Fed a growing reply,
    each stretch of words is looked up once; a text that does not extend the last one (the
    next reply of the same researcher) is read afresh."""

    def __init__(self, passages: Iterable[str]) -> None:
        # Each passage's words between spaces; a bar keeps a run from crossing two passages.
        self._held = " | ".join(f" {' '.join(_words(passage))} " for passage in passages)
        self._text = ""
        self._checked = 0  # windows (by their first word) known to copy nothing

    def start(self, text: str) -> int | None:
        """Where the copy begins in `text`: the start of the line holding the first copied
        run, or of its sentence when the line opens with sentences of the reply's own; None
        while the reply copies no run of `MIN_RUN_WORDS` words."""
        if not self._held.strip(" |"):
            return None
        if not text.startswith(self._text):
            self._checked = 0
        self._text = text
        blanked = NUMBERED_MARKER_RE.sub(lambda marker: " " * len(marker.group()), text)
        spans = [(match.start(), match.group().casefold()) for match in _WORD.finditer(blanked)]
        # A word at the very end may still be growing: windows that end on it wait.
        complete = len(spans) - 1 if blanked[-1:].isalnum() or blanked[-1:] == "_" else len(spans)
        for first in range(self._checked, complete - MIN_RUN_WORDS + 1):
            window = " ".join(word for _, word in spans[first : first + MIN_RUN_WORDS])
            if f" {window} " in self._held:
                return _copy_start(text, spans[first][0])
            self._checked = first + 1
        return None


# Before a copy on its line, this many words of the reply's own are a finding it wrote; fewer
# are a label it put on the copy ("- [1] [25.1. Routine Vacuuming]. ", numbers aside).
MIN_OWN_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def _copy_start(text: str, run_at: int) -> int:
    line_start = text.rfind("\n", 0, run_at) + 1
    ends = [end.end() for end in _SENTENCE_END.finditer(text, line_start, run_at)]
    own = [word for word in _words(text[line_start : ends[-1]] if ends else "") if word.isalpha()]
    if len(own) >= MIN_OWN_WORDS:
        return ends[-1] + 1
    return line_start
