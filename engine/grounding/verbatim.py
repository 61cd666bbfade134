"""The verbatim fast path: a sentence its cited source says word for word is supported.

Words are compared as a sequence, with citation markers, Markdown (emphasis, code spans,
links), a leading `name():` label, case, punctuation and whitespace set aside: "If the stdout
argument was not PIPE, this attribute is None. [3]" is found in a page whose text begins with
it, whatever else the page says beside it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.grounding.claims import strip_markers
from engine.grounding.passages import Passage
from engine.text.entry_names import LEADING_ENTRY_LABEL

# `loop.create_connection():`, `@functools.lru_cache(maxsize=128, typed=False):`,
# `join([timeout]):` — the API entry a sentence was taken from, written before it.
_LABEL = re.compile(r"^\s*[@\w.]+\((?:[^()]|\([^()]*\))*\)\s*:\s+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# A word without the underscores around it: `_not_` (emphasis) is "not", `wait_for` stays.
_WORD = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
# How far before a quoted sentence the entry's name it is quoted under may stand: past its
# type, the list's dash and the entry's sentences before it ("autovacuum_analyze_threshold
# (integer) - Specifies the minimum number of … in any one table. The default is 50 tuples.").
LABEL_REACH = 300
# Shorter than this, a word sequence is found in too many places to vouch for anything.
MIN_WORDS = 4


@dataclass(frozen=True)
class VerbatimMatch:
    """Where a sentence was found: the passage and the character its words start at."""

    passage: Passage
    offset: int
    words: str


def claim_words(sentence: str) -> tuple[str, ...]:
    text = _LINK.sub(r"\1", strip_markers(sentence))
    return tuple(word.casefold() for word in _WORD.findall(_LABEL.sub("", text)))


@lru_cache(maxsize=256)
def _indexed(text: str) -> tuple[str, tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The passage's words casefolded and joined by single spaces, where each word starts in
    that string, and where each word starts and ends in `text` (casefolding may lengthen a
    word: "Straße" is "strasse")."""
    matches = list(_WORD.finditer(text))
    joined, starts, at = [], [], 0
    for match in matches:
        word = match.group(0).casefold()
        starts.append(at)
        joined.append(word)
        at += len(word) + 1
    return " ".join(joined), tuple(starts), tuple(m.span() for m in matches)


def found_verbatim(
    sentence: str, passages: Sequence[Passage], *, min_words: int = MIN_WORDS
) -> VerbatimMatch | None:
    """Where `sentence`'s words stand in one of `passages` in the same order, or None.

    A sentence quoted under its entry's name ("autovacuum_vacuum_threshold: Specifies …") is
    found where its words follow that name, as the page's list item has them
    ("autovacuum_vacuum_threshold (integer) - Specifies …"); under another name it is not."""
    text = strip_markers(sentence)
    label = None if _LABEL.match(text) else LEADING_ENTRY_LABEL.match(text)
    words = claim_words(text[label.end() :] if label else sentence)
    if len(words) < min_words:
        return None
    needle = " ".join(words)
    for passage in passages:
        joined, starts, spans = _indexed(passage.text)
        at = _whole_words_at(joined, needle)
        while at >= 0:
            first = starts.index(at)
            start, end = spans[first][0], spans[first + len(words) - 1][1]
            if label is None or _named_before(label.group(0), passage.text, start):
                return VerbatimMatch(passage, start, passage.text[start:end])
            at = _whole_words_at(joined, needle, at + 1)
    return None


def _named_before(label: str, text: str, start: int) -> bool:
    """Whether one of the label's names stands in `text` shortly before `start`."""
    before = text[max(0, start - LABEL_REACH) : start]
    names = [name.strip() for name in label.rstrip().rstrip(":").split(",") if name.strip()]
    return any(name in before for name in names)


def _whole_words_at(joined: str, needle: str, begin: int = 0) -> int:
    """Where `needle` starts in `joined` on word boundaries, from `begin` on, or -1."""
    at = joined.find(needle, begin)
    while at >= 0:
        before = at == 0 or joined[at - 1] == " "
        after = at + len(needle) == len(joined) or joined[at + len(needle)] == " "
        if before and after:
            return at
        at = joined.find(needle, at + 1)
    return -1
