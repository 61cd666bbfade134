"""Whether a claim and its sources disagree on "not" (or on an opposite word) about one thing.

Each clause of the claim is compared with the source clause that says most of it. A clause
is negated when it holds an explicit negation ("not", "never", "cannot") or an implicit one
("unless", "regardless of", "instead of", "useless", "uncancelled"). A clause also disagrees
when it says one word of an opposite pair ("strong") where the source clause says the other
("weak") and not the claim's.

Each negation of a verb also bears on a predicate, the word after it ("does not *raise*",
"are cancelled and do not *continue*"): a claim that negates a predicate which a source
clause saying much of its main part affirms, or affirms one such a clause negates, is in
conflict unless another such clause of the source says it as the claim does. A negated
possession ("does not have a timeout") negates a noun, and "not X until Y" says when X
happens, not that it does not; neither marks a predicate. A claim that negates the noun ("no
traceback") does not affirm it either.

A claim clause that shares no word with the main part of the source clause it matches, only
with its condition ("while a loop is running" against "cannot be called when a loop is
running"), is compared with the condition. A negation that opens a clause of its own ("(not
reserved keywords)") is also read joined to the clause before it. "X instead of Y" against
"Y rather than X" is a conflict too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import islice
from typing import NamedTuple

from engine.grounding.names import code_names
from engine.grounding.words import stem

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

# A clause that shares fewer words than POLARITY_SHARE with its source clause is still
# compared when the word its negation bears on (its predicate: "not *thread-safe*", "does not
# *guarantee*") is one they share: the predicate, not the share, says it is one statement.
PREDICATE_SHARE = 0.3
MIN_PREDICATE_SHARED = 2
# Words between a negation and what it negates ("does not *always* raise", "need not *be*
# acquired"): skipped when looking for the predicate.
_FILLER = frozenset(
    {"be", "been", "being", "is", "are", "was", "were", "do", "does", "did"}
    | {"a", "an", "the", "to", "it", "its", "that", "this", "any", "always", "ever"}
    | {"necessarily", "yet", "also", "still", "only", "even", "made", "make", "get", "got"}
)
# Only a verb's negation marks a predicate: "accepts no timeout" or "without a lock" negate a
# noun, which the source may well affirm about something else.
# "makes no attempt to *override*" and "fails to *release*" negate a verb as "not" does.
_VERBAL_NEGATION = re.compile(
    r"\b(?:[Nn]ot|[Nn]ever|[Cc]annot|no attempt to|fail(?:s|ed)? to)\b|n't\b|n’t\b"
)
_WORD = re.compile(r"[A-Za-z][\w.\-]*(?:\(\))?")
_NOMINAL_NEGATION = re.compile(
    r"\b(?:[Nn]o|[Ww]ithout|[Nn]either|[Nn]or)\b|(?:\b[Nn]ot|n[’']t) (?:have|has|had)\b"
)
_POSSESSION = frozenset({"have", "has", "had"})
_UNTIL = re.compile(r"\buntil\b", re.IGNORECASE)


def _is_code_name(word: str) -> bool:
    """`re.match()`, `wait_for`, `MULTILINE`: what a sentence is about, never what its
    negation bears on ("does not make re.match() look" negates *look*)."""
    if word.islower() and not any(mark in word for mark in "._("):
        return False
    return bool(code_names(word))


Polarity = tuple[bool, bool | None]
# The words each negation bears on.
Predicates = tuple[frozenset[str], ...]


class Clause(NamedTuple):
    words: frozenset[str]
    said: Polarity
    negated: Predicates  # what the main part's verbs negate ("does not *raise*")
    main: frozenset[str]  # the words of the main part (without its condition)
    # Whether the condition's own words hold a negation ("when *no* loop is running"; None
    # without a condition): "unless" is not counted, unlike in `said`.
    condition_says_not: bool | None = None
    # What a noun's negation bears on ("accepts *no* timeout", "*without* a lock").
    nouns: Predicates = ()


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


def _following(text: str, most: int = 3) -> list[str]:
    """The first words after a negation that could be what it bears on."""
    words = (w for w in _WORD.findall(text) if w.lower() not in _FILLER)
    return list(islice((w for w in words if not _is_code_name(w)), most))


def predicate(clause: str, words_of: Callable[[str], frozenset[str]]) -> Predicates:
    """The words each negation of the main part bears on (none without a negation): "are
    cancelled and do not continue" negates *continue*, not *cancelled*; "not thread-safe"
    negates *thread* and *safe* as one."""
    plain = main_part(clause)
    unidiomatic = _NOT_A_NEGATION.sub(" ", clause)
    bearing: list[frozenset[str]] = []
    for found in _VERBAL_NEGATION.finditer(plain):
        if _UNTIL.search(unidiomatic, found.end()):
            # "will not exit until the futures are done" says when it exits, not that it
            # does not.
            continue
        following = _following(plain[found.end() :])
        if following[:1] and following[0].lower() in _POSSESSION and following[1:2] == ["been"]:
            following = following[2:]  # "has not been started": "have" helps a verb
        if following and following[0].lower() not in _POSSESSION:
            # "does not have a timeout parameter" negates a noun, as "has no timeout" does.
            bearing.append(words_of(following[0]))
    return tuple(word for word in bearing if word)


def negated_nouns(main: str, words_of: Callable[[str], frozenset[str]]) -> Predicates:
    """The words a negation of a noun bears on: "produce *no* traceback", "*without* a lock",
    "does not have a *timeout*"."""
    bearing = []
    plain = _NOT_A_NEGATION.sub(" ", main)
    for found in _NOMINAL_NEGATION.finditer(plain):
        following = [w for w in _following(plain[found.end() :]) if w.lower() not in _POSSESSION]
        if following:
            bearing.append(words_of(following[0]))
    return tuple(word for word in bearing if word)


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
        predicate(clause, words_of),
        main,
        condition_says_not(clause),
        negated_nouns(main_text, words_of),
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
        if _predicate_conflict(claim, source_clauses):
            return True
    return False


def predicate_conflict(claim_clauses: list[Clause], source_clauses: Sequence[Clause]) -> bool:
    """True when a claim clause negates a predicate a source clause saying much of it affirms,
    or the reverse (without comparing the clauses whole)."""
    return any(_predicate_conflict(claim, source_clauses) for claim in claim_clauses)


def _predicate_conflict(claim: Clause, sources: Sequence[Clause]) -> bool:
    """The claim clause's main part negates a predicate that a source clause saying much of it
    affirms in its main part, or the reverse, and no such source clause says it as the claim
    does (a page may say both "Return True if it is full" and "full() never returns True").
    A condition's negation is not compared here, and a claim that negates the word as a noun
    ("produce *no* traceback") does not affirm it."""
    main = claim.main
    related = [clause for clause in sources if _says_much_of(main, clause.words)]
    if not related:
        return False
    denied_by_claim = frozenset().union(*claim.negated)
    noun_denied_by_claim = frozenset().union(*claim.nouns)
    for unit in {*claim.negated, *(unit for clause in related for unit in clause.negated)}:
        if not unit <= main:
            continue
        denied = [clause for clause in related if unit & frozenset().union(*clause.negated)]
        affirmed = [clause for clause in related if unit <= clause.main]
        affirmed = [clause for clause in affirmed if clause not in denied]
        if unit & denied_by_claim:
            if affirmed and not denied:
                return True
        elif denied and not affirmed and not unit & noun_denied_by_claim:
            return True
    return False


def _says_much_of(main: frozenset[str], source: frozenset[str]) -> bool:
    shared = len(main & source)
    return shared >= MIN_PREDICATE_SHARED and shared >= PREDICATE_SHARE * len(main)


# "X instead of Y", "X rather than Y": X is chosen and Y passed over.
_ALTERNATIVE = re.compile(r"\b(?:instead of|rather than)\b", re.IGNORECASE)
_ALTERNATIVE_END = re.compile(r"[,;:.!?](?:\s|$)")
# (the words of what a sentence chooses, the words of what it passes over)
Alternative = tuple[frozenset[str], frozenset[str]]


def alternatives(sentence: str, words_of: Callable[[str], frozenset[str]]) -> list[Alternative]:
    """What each "instead of" or "rather than" of a sentence chooses and passes over."""
    found = []
    for marker in _ALTERNATIVE.finditer(sentence):
        rest = sentence[marker.end() :]
        end = _ALTERNATIVE_END.search(rest)
        passed_over = words_of(rest[: end.start()] if end else rest)
        chosen = words_of(sentence[: marker.start()])
        if chosen and passed_over:
            found.append((chosen, passed_over))
    return found


def alternatives_swapped(claim: Sequence[Alternative], sources: Sequence[Alternative]) -> bool:
    """The claim passes over what a source chooses, and chooses what it passes over ("invokes
    default_factory instead of returning None" against "return None rather than using
    default_factory")."""
    for chosen, passed_over in claim:
        for source_chosen, source_passed_over in sources:
            if (
                passed_over & source_chosen
                and chosen & source_passed_over
                and not passed_over & source_passed_over
            ):
                return True
    return False
