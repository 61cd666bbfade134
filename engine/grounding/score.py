"""Score one claim against the text its cited sources returned, with no model and no network.

The score is the share of the claim's content words (lightly stemmed) found in the best
window of consecutive sentences of one passage, or in the best windows of several passages
together when the claim cites more than one source. Three things are checked outright,
whatever the overlap, because they are what a fluent but wrong sentence changes while
keeping the words:
- every number the claim states must be in its sources;
- a code name the sources lack (`re.search`) is wrong when they name a sibling instead
  (`re.match`, the same module or the same kind of name: `CancelledError` / `TimeoutError`);
- each clause of the claim must have the polarity of the source clause that says most of it
  ("the barrier cannot be reused" against "the barrier can be reused").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from engine.grounding.claims import strip_markers
from engine.sourcing.attribution import content_words

SupportStatus = Literal["supported", "weak", "unsupported"]

# Calibrated on tests/fixtures/grounding/labelled_claims.jsonl (bench/grounding.py).
SUPPORTED_AT = 0.6
WEAK_AT = 0.25
WINDOW_SENTENCES = 3
# A claim clause is compared for polarity with the source clause holding this share of it.
POLARITY_SHARE = 0.6
MIN_CLAUSE_WORDS = 3
NO_TEXT = "no text from its sources was kept to check it against"
MAX_EXCERPT_CHARS = 400
SHORT_SENTENCE_CHARS = 120

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")
_CLAUSE_BREAK = re.compile(
    r"(?<=[.!?])\s+|[;,:()–—]|\s-\s"
    r"|\b(?:although|though|whereas|while|but|so|because|instead|in contrast)\b",
    re.IGNORECASE,
)
# Idioms that hold a negation word but negate nothing.
_NOT_A_NEGATION = re.compile(r"\b(?:whether or not|not only|no longer than|no more than)\b", re.I)
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
_CAMEL_TAIL = re.compile(r"[A-Z][a-z0-9]+$")
_CAMEL_HEAD = re.compile(r"[A-Z][a-z0-9]+(?=[A-Z])")
# Case matters once: Python's `None` is a value, not a negation.
_NEGATION = re.compile(
    r"\b(?:[Nn]ot|[Nn]o|[Nn]ever|[Cc]annot|none|[Nn]othing|[Nn]either|[Nn]or|[Ww]ithout)\b"
    r"|n't\b|n’t\b"
)


@dataclass(frozen=True)
class ClaimScore:
    """How well the cited text supports a claim: 0..1, a status, and why when it fails."""

    score: float
    status: SupportStatus
    reason: str = ""
    # The sentences of the sources that share most of the claim's words: what a reader
    # checks the claim against.
    excerpt: str = ""


def _stem(word: str) -> str:
    # Enough to match "cancelled"/"cancels"/"cancelling" to "cancel" and plurals to singulars.
    for suffix in ("ingly", "edly", "ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and "." not in word:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in content_words(text))


def _numbers(text: str, *, spelled: bool = False) -> set[str]:
    if spelled:
        text = _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)
    return {match.group(0).replace(",", "").rstrip(".") for match in _NUMBER.finditer(text)}


@dataclass(frozen=True)
class _Name:
    """A code name as written (`re.search()`), folded, with what makes its siblings.

    `family` is what a swapped-in name would share: "Error" for `CancelledError` (a class
    named by its last word), "re." for `re.search` (a function of a module); "" for names
    with no family (`dataclass`, `__init__`), which are never called swapped.
    """

    text: str
    family: str
    head: str = ""  # "Queue" of QueueEmpty: QueueFull is a sibling too


def _family(written: str) -> str:
    module, _, last = written.rpartition(".")
    tail = _CAMEL_TAIL.search(last)
    if last[:1].isupper() and tail and tail.start() > 0:
        return tail.group(0)
    if module and last[:1].islower():
        return module.lower() + "."
    return ""


def _code_names(text: str) -> list[_Name]:
    names: dict[str, _Name] = {}
    for match in _CODE_NAME.finditer(text):
        raw = next(group for group in match.groups() if group)
        written = raw.strip("().,:;")
        name = written.lower()
        if not name or name.replace(".", "").isdigit():
            continue
        head = _CAMEL_HEAD.match(written.rsplit(".", 1)[-1])
        names.setdefault(name, _Name(name, _family(written), head.group(0) if head else ""))
    return list(names.values())


def _name_found(name: _Name, words: frozenset[str], text: str) -> bool:
    # `asyncio.wait_for` is found in a passage that says `wait_for`; `wait_for()` as `wait_for`.
    last = name.text.rsplit(".", 1)[-1]
    return name.text in text or last in words or _stem(last) in words


def _sibling(name: _Name, others: Iterable[_Name]) -> _Name | None:
    """A name of the sources that could stand where the claim put `name` (a swap)."""
    if not name.family and not name.head:
        return None
    return next(
        (
            other
            for other in others
            if other.text != name.text
            and (other.family == name.family or (name.head and other.head == name.head))
        ),
        None,
    )


def _clauses(text: str, min_words: int = MIN_CLAUSE_WORDS) -> list[tuple[frozenset[str], bool]]:
    """(words, negated) of each clause long enough to compare."""
    clauses = []
    for clause in _CLAUSE_BREAK.split(text):
        words = _words(clause)
        if len(words) >= min_words:
            negated = bool(_NEGATION.search(_NOT_A_NEGATION.sub(" ", clause)))
            clauses.append((words, negated))
    return clauses


@dataclass(frozen=True)
class _Passage:
    folded: str
    words: frozenset[str]
    windows: tuple[frozenset[str], ...]  # words of each run of WINDOW_SENTENCES sentences
    sentence_words: tuple[frozenset[str], ...]
    sentence_texts: tuple[str, ...]
    clauses: tuple[tuple[frozenset[str], bool], ...]
    numbers: frozenset[str]
    names: tuple[_Name, ...]


# A prepared 12,000-character page is about half a megabyte: keep a report's worth, not more.
@lru_cache(maxsize=256)
def _prepared(passage: str) -> _Passage:
    text = " ".join(passage.split())
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    each = [_words(sentence) for sentence in sentences]
    starts = range(max(1, len(each) - WINDOW_SENTENCES + 1))
    windows = tuple(frozenset().union(*each[i : i + WINDOW_SENTENCES]) for i in starts)
    return _Passage(
        folded=text.lower(),
        words=frozenset(content_words(text)) | _words(text),
        windows=windows,
        sentence_words=tuple(each),
        sentence_texts=tuple(sentences),
        clauses=tuple(_clauses(text, min_words=2)),
        numbers=frozenset(_numbers(text, spelled=True)),
        names=tuple(_code_names(text)),
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
    """True when the claim and its sources disagree on "not" about the same thing.

    Each clause of the claim is compared with the source clause that says most of it.
    """
    # A claim that is one short clause ("the cache is not threadsafe") is still checked.
    claim_clauses = _clauses(text) or _clauses(text, min_words=2)
    source_clauses = [clause for passage in passages for clause in passage.clauses]
    for words, negated in claim_clauses:
        best_share, best_negated = 0.0, negated
        for clause_words, clause_negated in source_clauses:
            share = len(words & clause_words) / len(words)
            if share > best_share:
                best_share, best_negated = share, clause_negated
        if best_share >= POLARITY_SHARE and best_negated != negated:
            return True
    return False


def score_claim(claim: str, passages: Sequence[str]) -> ClaimScore:
    """Support for `claim` (citation markers ignored) from the text of its cited sources."""
    text = strip_markers(claim).strip()
    wanted = _words(text)
    prepared = [_prepared(passage) for passage in passages if passage.strip()]
    verdict = _verdict(text, wanted, prepared)
    if not prepared or not wanted:
        return verdict
    return replace(verdict, excerpt=_excerpt(wanted, prepared))


def _verdict(text: str, wanted: frozenset[str], prepared: Sequence[_Passage]) -> ClaimScore:
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
        return ClaimScore(0.0, "unsupported", f"its sources do not state {missing_numbers[0]}")
    every_word = frozenset().union(*(p.words for p in prepared))
    joined = " ".join(p.folded for p in prepared)
    source_names = [name for p in prepared for name in p.names]
    for name in _code_names(text):
        if _name_found(name, every_word, joined):
            continue
        sibling = _sibling(name, source_names)
        if sibling is not None:
            return ClaimScore(
                0.0, "unsupported", f"its sources name {sibling.text}, not {name.text}"
            )
    covered = frozenset().union(*(_best_window(wanted, p) for p in prepared))
    score = len(covered) / len(wanted)
    if _polarity_conflict(text, prepared):
        return ClaimScore(0.0, "unsupported", "its sources state the opposite")
    if score >= SUPPORTED_AT:
        return ClaimScore(round(score, 3), "supported")
    if score >= WEAK_AT:
        return ClaimScore(round(score, 3), "weak", "its sources share only part of its wording")
    return ClaimScore(round(score, 3), "unsupported", "its sources do not say this")
