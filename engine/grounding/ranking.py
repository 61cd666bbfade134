"""The parts of a source's text that say most of what a sentence says, best first.

A page is cut into windows of consecutive sentences a few hundred characters long; each is
ranked by how many of the sentence's content words (stemmed) it holds. The judge reads the
best windows of each cited source, not whatever the page opened with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from engine.grounding.passages import Passage
from engine.text.words import stemmed_words

_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?;:])\s+)(?=\S)")


@lru_cache(maxsize=128)
def _sentences(text: str) -> tuple[tuple[int, frozenset[str]], ...]:
    """Where each sentence of `text` starts, and its stemmed content words."""
    starts = [match.end() for match in _SENTENCE_START.finditer(text)] or [0]
    ends = [*starts[1:], len(text)]
    return tuple(
        (start, stemmed_words(text[start:end])) for start, end in zip(starts, ends, strict=True)
    )


def best_windows(
    sentence: str, passages: Sequence[Passage], *, count: int, chars: int
) -> list[tuple[Passage, int, str]]:
    """Up to `count` windows of at most `chars` characters from `passages`, the ones sharing
    most of `sentence`'s words first: (passage, where the window starts, its text)."""
    wanted = stemmed_words(sentence)
    ranked: list[tuple[int, int, Passage, int, int]] = []
    for order, passage in enumerate(passages):
        parts = _sentences(passage.text)
        for index, (start, _words) in enumerate(parts):
            end, shared = start, set[str]()
            for next_start, words in parts[index:]:
                if next_start - start >= chars:
                    break
                shared |= wanted & words
                end = next_start
            stop = min(len(passage.text), start + chars)
            ranked.append((-len(shared), order, passage, start, max(stop, end)))
    ranked.sort(key=lambda entry: (entry[0], entry[1], entry[3]))
    chosen: list[tuple[Passage, int, str]] = []
    taken: list[tuple[Passage, int, int]] = []
    for _score, _order, passage, start, stop in ranked:
        if any(p is passage and start < e and s < stop for p, s, e in taken):
            continue
        taken.append((passage, start, stop))
        chosen.append((passage, start, _trimmed(passage.text[start:stop])))
        if len(chosen) == count:
            break
    return chosen


def _trimmed(text: str) -> str:
    """A window cut at its last whole word."""
    return text if len(text) < 20 or text[-1] in ".!?" else text.rsplit(" ", 1)[0]
