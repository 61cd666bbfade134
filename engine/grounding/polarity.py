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

# A clause that shares fewer words than POLARITY_SHARE with its source clause is still
# compared when the word its negation bears on (its predicate: "not *thread-safe*", "does not
# *guarantee*") is one they share: the predicate, not the share, says it is one statement.
PREDICATE_SHARE = 0.3
MIN_PREDICATE_SHARED = 2
# Words between a negation and what it negates ("does not *always* raise", "need not *be*
# acquired"): skipped when looking for the predicate.
_FILLER = frozenset(
    {"be", "been", "being", "is", "are", "was", "were", "do", "does", "did", "have", "has"}
    | {"had", "a", "an", "the", "to", "it", "its", "that", "this", "any", "always", "ever"}
    | {"necessarily", "yet", "also", "still", "only", "even", "made", "make", "get", "got"}
)
# Only a verb's negation marks a predicate: "accepts no timeout" or "without a lock" negate a
# noun, which the source may well affirm about something else.
_VERBAL_NEGATION = re.compile(r"\b(?:[Nn]ot|[Nn]ever|[Cc]annot)\b|n't\b|n’t\b")
_WORD = re.compile(r"[A-Za-z][\w.\-]*")

Polarity = tuple[bool, bool | None]
# (its words, its polarity, the predicate its main part negates, the words of its main part)
Clause = tuple[frozenset[str], Polarity, frozenset[str], frozenset[str]]


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


def main_part(clause: str) -> str:
    """The clause without its condition ("X when Y" is X)."""
    plain = _NOT_A_NEGATION.sub(" ", clause)
    condition = _CONDITION.search(plain)
    return plain if condition is None else plain[: condition.start()]


def predicate(clause: str, words_of: Callable[[str], frozenset[str]]) -> frozenset[str]:
    """The content word the main part's negation bears on (empty without a negation)."""
    plain = main_part(clause)
    found = _VERBAL_NEGATION.search(plain)
    if found is None:
        return frozenset()
    following = [w for w in _WORD.findall(plain[found.end() :]) if w.lower() not in _FILLER]
    return words_of(" ".join(following[:1])) if following else frozenset()


def clauses(
    text: str, words_of: Callable[[str], frozenset[str]], min_words: int = MIN_CLAUSE_WORDS
) -> list[Clause]:
    """(words, negated, negated predicate) of each clause long enough to compare."""
    found = []
    for clause in CLAUSE_BREAK.split(text):
        words = words_of(clause)
        if _weight(words) >= min_words:
            main = words_of(main_part(clause))
            found.append((words, polarity(clause), predicate(clause, words_of), main))
    return found


def _opposed(claim: frozenset[str], source: frozenset[str]) -> bool:
    for one, other in OPPOSITES:
        for said, opposite in ((one, other), (other, one)):
            if said in claim and opposite in source and said not in source:
                return True
    return False


def conflict(claim_clauses: list[Clause], source_clauses: Sequence[Clause]) -> bool:
    """True when a claim clause and the source clause that says most of it disagree."""
    for words, said, negated, main in claim_clauses:
        best_shared, best = 0, None
        for clause in source_clauses:
            shared = len(words & clause[0])
            if shared > best_shared:
                best_shared, best = shared, clause
        if best is None:
            continue
        enough = min(MIN_SHARED, len(words))
        similar = best_shared >= enough and best_shared / len(words) >= POLARITY_SHARE
        if similar and (_disagree(said, best[1]) or _opposed(words, best[0])):
            return True
        if _predicate_conflict(words, negated, main, source_clauses):
            return True
    return False


def _predicate_conflict(
    words: frozenset[str],
    negated: frozenset[str],
    main: frozenset[str],
    sources: Sequence[Clause],
) -> bool:
    """The claim clause's main verb negates a predicate that the source clause sharing most
    of it affirms in its main part, or the reverse (a condition's negation, or a noun's,
    is not compared here)."""
    best: Clause | None = None
    best_shared: frozenset[str] = frozenset()
    for clause in sources:
        shared = words & clause[0]
        if len(shared) > len(best_shared):
            best, best_shared = clause, shared
    if best is None or len(best_shared) < MIN_PREDICATE_SHARED:
        return False
    if len(best_shared) / len(words) < PREDICATE_SHARE or bool(negated) == bool(best[2]):
        return False
    bearing = negated or best[2]
    return bearing <= best_shared & main & best[3]
