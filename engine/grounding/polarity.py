"""Whether a claim and its sources disagree on "not" (or on an opposite word) about one thing.

A screen, not a judge: a conflict found here marks a sentence for a reader (or a judge) to
check, it never removes one. Each clause of the claim is compared with the source clause that
says most of it. A clause is negated when it holds an explicit negation ("not", "never",
"cannot") or an implicit one ("unless", "regardless of", "useless", "uncancelled"). A clause
also disagrees when it says one word of an opposite pair ("strong") where the source clause
says the other ("weak") and not the claim's.

A claim clause that shares no word with the main part of the source clause it matches, only
with its condition ("while a loop is running" against "cannot be called when a loop is
running"), is compared with the condition. A negation that opens a clause of its own ("(not
reserved keywords)") is also read joined to the clause before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from engine.text.stem import stem

# A clause ends at punctuation, and before a word that starts a clause of its own: the
# condition of "X unless Y" must not lend its negation to X.
CLAUSE_BREAK = re.compile(
    r"(?<=[.!?])\s+|[;,:–—]|\((?!\))|(?<!\()\)|\s-\s"
    r"|\b(?:although|though|whereas|while|but|so|because|in contrast)\b"
    r"|\s(?=(?:instead of|rather than|unless|regardless of|otherwise)\b)"
    # A purpose ("limits it to 5 to prevent attacks"): what it prevents is not what is said.
    r"|\s(?=(?:in order |so as )?to (?:prevent|avoid)\b)",
    re.IGNORECASE,
)
# Idioms that hold a negation word but negate nothing.
_NOT_A_NEGATION = re.compile(r"\b(?:whether or not|not only|no longer than|no more than)\b", re.I)
# Case matters once: Python's `None` is a value, not a negation.
_NEGATION = re.compile(
    r"\b(?:[Nn]ot|[Nn]o|[Nn]ever|[Cc]annot|none|[Nn]othing|[Nn]either|[Nn]or|[Ww]ithout"
    r"|[Rr]egardless|[Ii]nstead of|[Rr]ather than|[Uu]seless|[Pp]revent(?:s|ed)?"
    r"|[Ll]acks?|[Aa]void(?:s|ed)?|[Rr]efus(?:e|es|ed)|[Ff]ail(?:s|ed)? to|stops? \w+ from)\b"
    r"|n't\b|n’t\b"
)
# "is unhashable", "leaves the call uncancelled": a negated predicate ("uncaught exceptions"
# is a kind of exception, not a negation). Not "under", "unique", "until", "unlike".
_UN_PREDICATE = re.compile(
    r"\b(?:is|are|be|been|was|were|remains?|stays?|left|leaves?|itself|themselves|if|when)\s+"
    r"(?:\w+\s+)?[Uu]n(?!der|iq|it|iv|til|less|like|ion)[a-z]{4,}\b"
)
# A negation after one of these belongs to a condition ("created when no context is
# provided"), not to what the clause says.
_CONDITION = re.compile(r"\b(?:when|whenever|if|unless|until|once|where)\b", re.IGNORECASE)
# Opposite words; either side may say either word.
_OPPOSITE_WORDS = (
    ("strong", "weak"),
    ("eager", "lazy"),
    ("eagerly", "lazily"),
    ("graceful", "abrupt"),
    ("gracefully", "abruptly"),
    ("synchronous", "asynchronous"),
    ("mutable", "immutable"),
    ("increase", "decrease"),
    ("enabl", "disabl"),
    ("permit", "prohibit"),
    ("allow", "forbidden"),
    ("safe", "unsafe"),
    ("public", "private"),
    ("minimum", "maximum"),
    ("ascend", "descend"),
    ("inclusive", "exclusive"),
    ("before", "after"),
    ("upper", "lower"),
)
# Stemmed, pairs that fall together ("graceful"/"gracefully") are one pair.
OPPOSITES = tuple(dict.fromkeys((stem(one), stem(other)) for one, other in _OPPOSITE_WORDS))
# A claim clause is compared with the source clause holding this share of its words, and
# at least this many of them: two shared words are too few to say two clauses are one.
POLARITY_SHARE = 0.6
MIN_SHARED = 4
MIN_CLAUSE_WORDS = 3

Polarity = tuple[bool, bool | None]


class Clause(NamedTuple):
    words: frozenset[str]
    said: Polarity
    main: frozenset[str]  # the words of the main part (without its condition)
    # Whether the condition's own words hold a negation ("when *no* loop is running"; None
    # without a condition): "unless" is not counted, unlike in `said`.
    condition_says_not: bool | None = None


def _says_not(text: str) -> bool:
    return bool(_NEGATION.search(text) or _UN_PREDICATE.search(text))


@lru_cache(maxsize=8192)
def _condition(clause: str) -> tuple[str, re.Match[str] | None]:
    """The clause without idioms that hold a negation word, and where its condition starts."""
    plain = _NOT_A_NEGATION.sub(" ", clause)
    return plain, _CONDITION.search(plain)


def polarity(clause: str) -> Polarity:
    """(what the clause says is negated, its condition is negated or None without one)."""
    plain, condition = _condition(clause)
    if condition is None:
        return _says_not(plain), None
    negated_condition = _says_not(plain[condition.start() :])
    if condition.group(0).lower() == "unless":  # "unless X" is "if not X"
        negated_condition = not negated_condition
    return _says_not(plain[: condition.start()]), negated_condition


def condition_says_not(clause: str) -> bool | None:
    """Whether the words of the clause's condition hold a negation (None without one)."""
    plain, condition = _condition(clause)
    return None if condition is None else _says_not(plain[condition.end() :])


def _disagree(one: Polarity, other: Polarity) -> bool:
    # Conditions are compared only when both clauses state one.
    return one[0] != other[0] or (None not in (one[1], other[1]) and one[1] != other[1])


_DOTTED = re.compile(r"(?<=\w)\.(?=\w)")


def _weight(clause: str, words: frozenset[str], words_of: Callable[[str], frozenset[str]]) -> int:
    """How many words a clause has, counting `path.link_to` once, not with its parts (a part
    also said on its own, as "the Task" beside `Task.cancel()`, counts too)."""
    parts = {part for word in words if "." in word for part in word.split(".")}
    if not parts:
        return len(words)
    return len(words_of(_DOTTED.sub("_", clause)))


def main_part(clause: str) -> str:
    """The clause without its condition ("X when Y" is X)."""
    plain, condition = _condition(clause)
    return plain if condition is None else plain[: condition.start()]


# A negation that opens a clause of its own ("built-in identifiers (not reserved keywords)",
# "names fifo, not sigint") says what the clause before it is not.
_ATTACHED_NEGATION = re.compile(r"\s*(?:not|never)\b")


def _clause(
    clause: str, words: frozenset[str], words_of: Callable[[str], frozenset[str]]
) -> Clause:
    main_text = main_part(clause)
    main = words if main_text == clause else words_of(main_text)
    return Clause(
        words,
        polarity(clause),
        main,
        condition_says_not(clause),
    )


def clauses(
    text: str, words_of: Callable[[str], frozenset[str]], min_words: int = MIN_CLAUSE_WORDS
) -> list[Clause]:
    """Each clause long enough to compare, and each clause joined to a negation that follows
    it on its own ("X (not Y)" also reads as "X not Y", after "X")."""
    found = []
    before = ""
    for clause in CLAUSE_BREAK.split(text):
        words = words_of(clause)
        if _weight(clause, words, words_of) >= min_words:
            found.append(_clause(clause, words, words_of))
        if before and _ATTACHED_NEGATION.match(clause):
            joined = f"{before} {clause}"
            found.append(_clause(joined, words_of(joined), words_of))
        before = clause
    return found


def _opposed(claim: frozenset[str], source: frozenset[str]) -> bool:
    for one, other in OPPOSITES:
        for said, opposite in ((one, other), (other, one)):
            if said in claim and opposite in source and said not in source:
                return True
    return False


def _best_match(claim: Clause, sources: Sequence[Clause]) -> Clause | None:
    """The source clause sharing most of the claim clause's words, if it says the same."""
    best_shared, best = 0, None
    for clause in sources:
        shared = len(claim.words & clause.words)
        if shared > best_shared:
            best_shared, best = shared, clause
    enough = min(MIN_SHARED, len(claim.words))
    if best_shared >= enough and best_shared / len(claim.words) >= POLARITY_SHARE:
        return best
    return None


def _clauses_disagree(claim: Clause, source: Clause) -> bool:
    if _opposed(claim.words, source.words):
        return True
    # A claim clause that shares no word with the source clause's main part states on its own
    # what the source makes a condition ("refuses to run while a loop is running" against
    # "cannot be called when a loop is running"): the condition is what it is compared with.
    stated_on_its_own = claim.said[1] is None and not claim.words & source.main
    if stated_on_its_own and source.condition_says_not is not None:
        return claim.said[0] != source.condition_says_not
    return _disagree(claim.said, source.said)


def conflict(claim_clauses: list[Clause], source_clauses: Sequence[Clause]) -> bool:
    """True when a claim clause and the source clause that says most of it disagree."""
    for claim in claim_clauses:
        best = _best_match(claim, source_clauses)
        if best is not None and _clauses_disagree(claim, best):
            return True
    return False
