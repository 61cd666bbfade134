"""Whether a claim and its sources disagree on "not" (or on an opposite word) about one thing.

Each clause of the claim is compared with the source clause that says most of it. A clause
is negated when it holds an explicit negation ("not", "never", "cannot") or an implicit one
("unless", "regardless of", "instead of", "useless", "uncancelled"). A clause also disagrees
when it says one word of an opposite pair ("strong") where the source clause says the other
("weak") and not the claim's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from engine.grounding.words import stem

# A clause ends at punctuation, and before a word that starts a clause of its own: the
# condition of "X unless Y" must not lend its negation to X.
CLAUSE_BREAK = re.compile(
    r"(?<=[.!?])\s+|[;,:–—]|\((?!\))|(?<!\()\)|\s-\s"
    r"|\b(?:although|though|whereas|while|but|so|because|in contrast)\b"
    r"|\s(?=(?:instead of|rather than|unless|regardless of|otherwise)\b)",
    re.IGNORECASE,
)
# Idioms that hold a negation word but negate nothing.
_NOT_A_NEGATION = re.compile(r"\b(?:whether or not|not only|no longer than|no more than)\b", re.I)
# Case matters once: Python's `None` is a value, not a negation.
_NEGATION = re.compile(
    r"\b(?:[Nn]ot|[Nn]o|[Nn]ever|[Cc]annot|none|[Nn]othing|[Nn]either|[Nn]or|[Ww]ithout"
    r"|[Rr]egardless|[Ii]nstead of|[Rr]ather than|[Uu]seless|[Pp]revent(?:s|ed)?"
    r"|[Ll]acks?|[Aa]void(?:s|ed)?|[Rr]efus(?:e|es|ed)|stops? \w+ from)\b"
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
Clause = tuple[frozenset[str], Polarity]


def _says_not(text: str) -> bool:
    return bool(_NEGATION.search(text) or _UN_PREDICATE.search(text))


def polarity(clause: str) -> Polarity:
    """(what the clause says is negated, its condition is negated or None without one)."""
    plain = _NOT_A_NEGATION.sub(" ", clause)
    condition = _CONDITION.search(plain)
    if condition is None:
        return _says_not(plain), None
    negated_condition = _says_not(plain[condition.start() :])
    if condition.group(0).lower() == "unless":  # "unless X" is "if not X"
        negated_condition = not negated_condition
    return _says_not(plain[: condition.start()]), negated_condition


def _disagree(one: Polarity, other: Polarity) -> bool:
    # Conditions are compared only when both clauses state one.
    return one[0] != other[0] or (None not in (one[1], other[1]) and one[1] != other[1])


def _weight(words: frozenset[str]) -> int:
    """How many words a clause has, counting `path.link_to` once, not with its parts."""
    parts = {part for word in words if "." in word for part in word.split(".")}
    return len(words - parts)


def clauses(
    text: str, words_of: Callable[[str], frozenset[str]], min_words: int = MIN_CLAUSE_WORDS
) -> list[Clause]:
    """(words, negated) of each clause long enough to compare."""
    found = []
    for clause in CLAUSE_BREAK.split(text):
        words = words_of(clause)
        if _weight(words) >= min_words:
            found.append((words, polarity(clause)))
    return found


def _opposed(claim: frozenset[str], source: frozenset[str]) -> bool:
    for one, other in OPPOSITES:
        for said, opposite in ((one, other), (other, one)):
            if said in claim and opposite in source and said not in source:
                return True
    return False


def conflict(claim_clauses: list[Clause], source_clauses: Sequence[Clause]) -> bool:
    """True when a claim clause and the source clause that says most of it disagree."""
    for words, said in claim_clauses:
        best_shared, best = 0, None
        for clause in source_clauses:
            shared = len(words & clause[0])
            if shared > best_shared:
                best_shared, best = shared, clause
        enough = min(MIN_SHARED, len(words))
        if best is None or best_shared < enough or best_shared / len(words) < POLARITY_SHARE:
            continue
        if _disagree(said, best[1]) or _opposed(words, best[0]):
            return True
    return False
