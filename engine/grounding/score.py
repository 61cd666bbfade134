"""Score one claim against the text its cited sources returned, with no model and no network.

The score is the share of the claim's content words (lightly stemmed) found in the best
window of consecutive sentences of one passage, or in the best windows of several passages
together when the claim cites more than one source. Three things must match outright, whatever
the overlap: every number the claim states, every code name it uses (`lru_cache`,
`CancelledError`), and its polarity (a claim that says "not" where the passage does not, or
the reverse). These are what a fluent but wrong sentence changes while keeping the words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from engine.sourcing.attribution import content_words

SupportStatus = Literal["supported", "weak", "unsupported"]

# Calibrated on tests/fixtures/grounding/labelled_claims.jsonl (bench/grounding.py).
SUPPORTED_AT = 0.6
WEAK_AT = 0.4
WINDOW_SENTENCES = 3
POLARITY_SHARE = 0.5
NO_TEXT = "no text from its sources was kept to check it against"

_MARKER = re.compile(r"\s?\[\d+(?:\s*[,–-]\s*\d+)*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)*(?![\w])")
_NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_CODE_NAME = re.compile(
    r"`([^`\s]+)`"  # anything in backticks
    r"|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\(\))?"  # dotted: functools.lru_cache
    r"|\b([a-z]+_[\w]+)"  # snake_case: wait_for
    r"|\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"  # CamelCase: CancelledError
    r"|\b(\w+)\(\)"  # call(): gather()
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|none|nothing|neither|nor|without|unless)\b|n't\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ClaimScore:
    """How well the cited text supports a claim: 0..1, a status, and why when it fails."""

    score: float
    status: SupportStatus
    reason: str = ""


def _stem(word: str) -> str:
    # Enough to match "cancelled"/"cancels"/"cancelling" to "cancel" and plurals to singulars.
    for suffix in ("ingly", "edly", "ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and "." not in word:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in content_words(text))


def _numbers(text: str) -> set[str]:
    spelled = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)
    return {match.group(0).replace(",", "").rstrip(".") for match in _NUMBER.finditer(spelled)}


def _code_names(text: str) -> set[str]:
    names = set()
    for match in _CODE_NAME.finditer(text):
        name = next(group for group in match.groups() if group)
        name = name.strip("().,:;").lower()
        if name and not name.replace(".", "").isdigit():
            names.add(name)
    return names


def _name_found(name: str, words: frozenset[str], text: str) -> bool:
    # `asyncio.wait_for` is found in a passage that says `wait_for`; `wait_for()` as `wait_for`.
    last = name.rsplit(".", 1)[-1]
    return name in text or last in words or _stem(last) in words


@dataclass(frozen=True)
class _Passage:
    text: str
    folded: str
    words: frozenset[str]
    windows: tuple[frozenset[str], ...]  # words of each run of WINDOW_SENTENCES sentences
    sentences: tuple[tuple[frozenset[str], bool], ...]  # (words, negated) per sentence
    numbers: frozenset[str]


@lru_cache(maxsize=4096)
def _prepared(passage: str) -> _Passage:
    sentences = [s for s in _SENTENCE_END.split(" ".join(passage.split())) if s]
    each = tuple((_words(sentence), bool(_NEGATION.search(sentence))) for sentence in sentences)
    windows = tuple(
        frozenset().union(*(words for words, _ in each[start : start + WINDOW_SENTENCES]))
        for start in range(max(1, len(each) - WINDOW_SENTENCES + 1))
    )
    folded = passage.lower()
    words = frozenset(content_words(passage)) | _words(passage)
    return _Passage(passage, folded, words, windows, each, frozenset(_numbers(passage)))


def _best_window(wanted: frozenset[str], passage: _Passage) -> frozenset[str]:
    return max((wanted & window for window in passage.windows), key=len, default=frozenset())


def _closest_sentence(
    wanted: frozenset[str], passages: Sequence[_Passage]
) -> tuple[float, bool] | None:
    """Share of the claim's words in the passage sentence sharing most, and its polarity."""
    best: tuple[float, bool] | None = None
    for passage in passages:
        for words, negated in passage.sentences:
            share = len(wanted & words) / len(wanted)
            if best is None or share > best[0]:
                best = (share, negated)
    return best


def score_claim(claim: str, passages: Sequence[str]) -> ClaimScore:
    """Support for `claim` (citation markers ignored) from the text of its cited sources."""
    text = _MARKER.sub("", claim).strip()
    wanted = _words(text)
    prepared = [_prepared(passage) for passage in passages if passage.strip()]
    if not prepared:
        # A result with a title and URL but no text (some search APIs return no snippet):
        # nothing contradicts the claim either, so it is not removed, only not counted as
        # supported.
        return ClaimScore(0.0, "weak", NO_TEXT)
    if len(wanted) < 2:
        return ClaimScore(1.0, "supported", "nothing to check")
    every_number = set().union(*(p.numbers for p in prepared))
    missing_numbers = sorted(_numbers(text) - every_number)
    if missing_numbers:
        return ClaimScore(0.0, "unsupported", f"its sources do not state {missing_numbers[0]}")
    every_word = frozenset().union(*(p.words for p in prepared))
    joined = " ".join(p.folded for p in prepared)
    for name in sorted(_code_names(text)):
        if not _name_found(name, every_word, joined):
            return ClaimScore(0.0, "unsupported", f"its sources do not mention {name}")
    covered = frozenset().union(*(_best_window(wanted, p) for p in prepared))
    score = len(covered) / len(wanted)
    closest = _closest_sentence(wanted, prepared)
    claim_negated = bool(_NEGATION.search(text))
    # Polarity is judged on the one sentence that says most of the claim: a "not" elsewhere
    # in the passage says nothing about this claim.
    if closest and closest[0] >= POLARITY_SHARE and claim_negated != closest[1]:
        reason = (
            "it negates what its sources state"
            if claim_negated
            else "its sources state the opposite"
        )
        return ClaimScore(0.0, "unsupported", reason)
    if score >= SUPPORTED_AT:
        return ClaimScore(round(score, 3), "supported")
    if score >= WEAK_AT:
        return ClaimScore(round(score, 3), "weak", "its sources share only part of its wording")
    return ClaimScore(round(score, 3), "unsupported", "its sources do not say this")
