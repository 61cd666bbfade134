"""Score one claim against the text its cited sources returned, with no model and no network.

The score is the share of the claim's content words (stemmed) found in the best
window of consecutive sentences of one passage, or in the best windows of several sources
together when the claim cites more than one (a source's own passages are not pooled).
Three screens look past the overlap at what a fluent but wrong sentence changes while
keeping the words:
- every number the claim states must be in its sources (octal and hex literals too: a mode
  of 0o755 against 0o777);
- a code name the sources lack (`re.search`) is suspect when they name a sibling instead
  (`re.match`, `SystemExit` for `KeyboardInterrupt`; engine/grounding/names.py);
- each clause of the claim must have the polarity of the source clause that says most of it
  ("the barrier cannot be reused" against "the barrier can be reused"; "strong" against
  "weak"; engine/grounding/polarity.py).
A screen's verdict is `by_rule`: it may mark a sentence, never remove it (engine/grounding/
enforce.py); a judge reading the passages, where one is configured, decides.
Markdown emphasis with underscores is markup: `_not_` is read as "not".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from engine.grounding import polarity
from engine.grounding.claims import strip_markers
from engine.grounding.names import Name, code_names, found_in, sibling
from engine.grounding.words import without_emphasis
from engine.text.words import content_words, stemmed_words

SupportStatus = Literal["supported", "weak", "unsupported"]

# Calibrated on tests/fixtures/grounding/labelled_claims.jsonl (bench/grounding.py).
SUPPORTED_AT = 0.6
WEAK_AT = 0.25
WINDOW_SENTENCES = 3
NO_TEXT = "no text from its sources was kept to check it against"
MAX_EXCERPT_CHARS = 400
SHORT_SENTENCE_CHARS = 120

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
# Decimal numbers, and octal, hex and binary literals (a mode of 0o755, a mask of 0xFF).
_NUMBER = re.compile(r"(?<![\w.])(?:0[oOxXbB][0-9a-fA-F_]+|\d[\d,]*(?:\.\d+)*)(?![\w])")
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
# A number written onto a word in a page ("Node.js v18", "rfc9110", "HTTP2"): a claim that
# writes it apart ("Node.js 18", "RFC 9110") states the same number.
_NUMBER_ON_WORD = re.compile(r"(?<=[A-Za-z])\d+(?:\.\d+)*(?![\w])")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class ClaimScore:
    """How well the cited text supports a claim: 0..1, a status, and why when it fails."""

    score: float
    status: SupportStatus
    reason: str = ""
    # The sentences of the sources that share most of the claim's words: what a reader
    # checks the claim against.
    excerpt: str = ""
    # Decided by a screen (a number, a name, a negation) rather than by the overlap.
    by_rule: bool = False


def _numbers(text: str, *, spelled: bool = False) -> set[str]:
    if spelled:
        text = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)
    return {match.group(0).replace(",", "").rstrip(".").lower() for match in _NUMBER.finditer(text)}


@dataclass(frozen=True)
class _Passage:
    text: str
    folded: str
    words: frozenset[str]
    windows: tuple[frozenset[str], ...]  # words of each run of WINDOW_SENTENCES sentences
    sentence_words: tuple[frozenset[str], ...]
    sentence_texts: tuple[str, ...]
    clauses: tuple[polarity.Clause, ...]
    numbers: frozenset[str]
    names: tuple[Name, ...]


# A prepared 12,000-character page is about half a megabyte: keep a report's worth, not more.
@lru_cache(maxsize=256)
def _prepared(passage: str) -> _Passage:
    text = without_emphasis(" ".join(passage.split()))
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    each = [stemmed_words(sentence) for sentence in sentences]
    starts = range(max(1, len(each) - WINDOW_SENTENCES + 1))
    windows = tuple(frozenset().union(*each[i : i + WINDOW_SENTENCES]) for i in starts)
    return _Passage(
        text=text,
        folded=text.lower(),
        words=frozenset(content_words(text)) | stemmed_words(text),
        windows=windows,
        sentence_words=tuple(each),
        sentence_texts=tuple(sentences),
        clauses=tuple(polarity.clauses(text, stemmed_words, min_words=2)),
        numbers=frozenset(_numbers(text, spelled=True))
        | {match.group(0) for match in _NUMBER_ON_WORD.finditer(text)},
        names=tuple(code_names(text)),
    )


def _best_window(wanted: frozenset[str], passage: _Passage) -> frozenset[str]:
    return max((wanted & window for window in passage.windows), key=len, default=frozenset())


def _excerpt(wanted: frozenset[str], passages: Sequence[_Passage]) -> str:
    """The source sentence sharing most of the claim's words, and the next one if short."""
    best, best_shared = "", 0
    for passage in passages:
        texts = passage.sentence_texts
        for index, words in enumerate(passage.sentence_words):
            shared = len(wanted & words)
            if shared > best_shared:
                best, best_shared = texts[index], shared
                if len(best) < SHORT_SENTENCE_CHARS and index + 1 < len(texts):
                    best = f"{best} {texts[index + 1]}"
    if len(best) > MAX_EXCERPT_CHARS:
        best = best[: MAX_EXCERPT_CHARS - 1].rstrip() + "…"
    return best


def _polarity_conflict(text: str, passages: Sequence[_Passage]) -> bool:
    # A claim that is one short clause ("the cache is not threadsafe") is still checked.
    words_of = stemmed_words
    long_clauses = polarity.clauses(text, words_of)
    short_clauses = polarity.clauses(text, words_of, 2)
    sources = [c for passage in passages for c in passage.clauses]
    return polarity.conflict(long_clauses or short_clauses, sources)


def score_claim(
    claim: str, passages: Sequence[str], sources: Sequence[str] | None = None
) -> ClaimScore:
    """Support for `claim` (citation markers ignored) from the text of its cited sources.

    `sources` names the source of each passage (None: each passage is a source of its own).
    A claim citing two sources may take some words from each; the passages of one source
    (its search snippets, its fetched page in pieces) are read one at a time, or words strewn
    over a long page would add up to any sentence written in its vocabulary.
    """
    text = without_emphasis(strip_markers(claim)).strip()
    wanted = stemmed_words(text)
    kept = [i for i, passage in enumerate(passages) if passage.strip()]
    prepared = [_prepared(passages[i]) for i in kept]
    owners = [sources[i] for i in kept] if sources is not None else [str(i) for i in kept]
    verdict = _verdict(text, wanted, prepared, owners)
    if not prepared or not wanted:
        return verdict
    return replace(verdict, excerpt=_excerpt(wanted, prepared))


def _wrong_name(text: str, prepared: Sequence[_Passage]) -> str:
    """Why a code name of the claim is suspect: the sources name a sibling instead ("" when
    its names are found)."""
    every_word = frozenset().union(*(p.words for p in prepared))
    joined = " ".join(p.folded for p in prepared)
    source_names: list[Name] = [name for p in prepared for name in p.names]
    for name in code_names(text):
        if found_in(name, every_word, joined, source_names):
            continue
        swapped = sibling(name, source_names)
        if swapped is not None:
            return f"its sources name {swapped.text}, not {name.text}"
    return ""


def coverage(claim: str, passages: Sequence[str]) -> float:
    """The share of the claim's content words the best window of any one passage holds."""
    wanted = stemmed_words(without_emphasis(strip_markers(claim)))
    if not wanted:
        return 1.0
    best = max((len(_best_window(wanted, _prepared(p))) for p in passages if p.strip()), default=0)
    return best / len(wanted)


def _covered(
    wanted: frozenset[str], prepared: Sequence[_Passage], owners: Sequence[str]
) -> frozenset[str]:
    """The claim's words in the best window of each source, together."""
    best: dict[str, frozenset[str]] = {}
    for passage, owner in zip(prepared, owners, strict=True):
        window = _best_window(wanted, passage)
        if len(window) > len(best.get(owner, frozenset())):
            best[owner] = window
    return frozenset().union(*best.values())


def _verdict(
    text: str, wanted: frozenset[str], prepared: Sequence[_Passage], owners: Sequence[str]
) -> ClaimScore:
    if not prepared:
        # A result with a title and URL but no text (some search APIs return no snippet):
        # nothing contradicts the claim either, so it is not removed, only not counted as
        # supported.
        return ClaimScore(0.0, "weak", NO_TEXT)
    if len(wanted) < 2:
        return ClaimScore(1.0, "supported", "nothing to check")
    every_number = frozenset().union(*(p.numbers for p in prepared))
    missing_numbers = sorted(_numbers(text) - every_number)
    if missing_numbers:
        return ClaimScore(
            0.0, "unsupported", f"its sources do not state {missing_numbers[0]}", by_rule=True
        )
    wrong_name = _wrong_name(text, prepared)
    if wrong_name:
        return ClaimScore(0.0, "unsupported", wrong_name, by_rule=True)
    score = len(_covered(wanted, prepared, owners)) / len(wanted)
    if _polarity_conflict(text, prepared):
        return ClaimScore(0.0, "unsupported", "its sources state the opposite", by_rule=True)
    if score >= SUPPORTED_AT:
        return ClaimScore(round(score, 3), "supported")
    if score >= WEAK_AT:
        return ClaimScore(round(score, 3), "weak", "its sources share only part of its wording")
    return ClaimScore(round(score, 3), "unsupported", "its sources do not say this")
