"""Which sentences the offline model quotes: the best-matching distinct ones for a question,
spread over their sources while those compete.

Deterministic like the text primitives it scores with (engine.models.offline.text): ties break
on source order and position, so the same sources always yield the same quotes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.models.offline.facts import fact_factor, fact_kinds
from engine.models.offline.text import is_code_name, name_terms, score, terms

NAME_WEIGHT = 2.0
# How much each sentence already quoted from a source discounts that source's next one.
SPREAD = 0.8
# The weakest sentence quoted scores at least this share of the best one.
FLOOR = 0.3
MIN_MATCHED = 2
OFF_FOCUS = 0.25
# A product's name in mixed case that ends in an acronym: `PostgreSQL`, `MySQL`, `GraphQL`.
_PRODUCT_NAME_RE = re.compile(r"^[A-Z][a-z]+(?:[A-Z][a-z]+)*[A-Z]{2,}(?:'s)?$")


@dataclass(frozen=True)
class Candidate:
    """A quotable sentence and where it came from (source order, position in the source)."""

    text: str
    source_index: int
    position: int
    # The entry or section the sentence is under (its name and text): its words count
    # towards the match at half weight.
    context: str = ""
    # The sentence as its source says it, when it is quoted under its entry's name.
    said: str = ""
    # The title and name of its page: context that every sentence of the page shares, so it
    # never makes a sentence meet the question by itself.
    page: str = ""


def idf_weights(documents: Sequence[Iterable[str]]) -> dict[str, float]:
    """Inverse document frequency of each term over the given term sets."""
    total = len(documents)
    frequency: dict[str, int] = {}
    for document in documents:
        for term in set(document):
            frequency[term] = frequency.get(term, 0) + 1
    return {term: math.log(1 + total / count) for term, count in frequency.items()}


def rank_candidates(
    candidates: Sequence[Candidate],
    query: str,
    *,
    limit: int,
    spread: float = SPREAD,
    floor: float = FLOOR,
    focus: str = "",
) -> list[Candidate]:
    """The best-matching distinct sentences, spread over sources while they compete.

    Picked best first; each sentence already taken from a source discounts that source's next
    one by `spread` (0..1), so a second source's good sentence comes before a first source's
    third-best, but a source that alone answers the question still fills the answer. Ties
    break on (source order, position), so the choice is stable across runs.
    """
    strong = _strong_and_distinct(_scored(candidates, query, focus), floor)
    return _spread_over_sources(strong, limit, spread)


def _scored(
    candidates: Sequence[Candidate], query: str, focus: str
) -> list[tuple[float, Candidate]]:
    """Each candidate with its score for `query` (0 when it is about something else)."""
    query_terms = terms(query)
    kinds = fact_kinds(query)
    term_sets = [terms(candidate.text) for candidate in candidates]
    weights = idf_weights(term_sets)
    focused = terms(focus) & query_terms
    for term in name_terms(query) | focused:
        # The names a question gives, and the words of the section a note is for, are what
        # its answer is about.
        weights[term] = weights.get(term, 1.0) * NAME_WEIGHT
    # A note for a section on "asyncio queues" is about asyncio queues (all but one of the
    # words of a longer heading): others count only when nothing on the section's subject
    # was found.
    needed = len(focused) if len(focused) <= 2 else len(focused) - 1
    # A sentence that meets one word of a longer query met it by chance ("coordinates" of a
    # point for "locks coordinate tasks"); one that names none of the code the query names, or
    # is on no page about it, is about something else ("dataclass() decorator" for
    # "functools.cache decorator").
    least = MIN_MATCHED if len(query_terms) > MIN_MATCHED else 1
    named = {
        term
        for token in query.split()
        # Joined names (`functools.cache`, `put_nowait`, `maxDiff`), not a word in capitals
        # nor a product's name (`PostgreSQL`, `MySQL`: a page about it need not say it).
        if is_code_name(token)
        and not token.strip("?!,;:'\"()").isupper()
        and not _PRODUCT_NAME_RE.match(token.strip("?!,;:'\"()"))
        for term in terms(token)
    }
    return [
        (
            score(term_set, query_terms, weights, context=context | page)
            * fact_factor(kinds, candidate.text, query)
            * (1.0 if len((term_set | context | page) & focused) >= needed else OFF_FOCUS)
            if len((term_set | context) & query_terms) >= least
            and (not named or (term_set | context | page) & named)
            else 0.0,
            candidate,
        )
        for term_set, candidate in zip(term_sets, candidates, strict=True)
        for context, page in [(terms(candidate.context), terms(candidate.page))]
    ]


def _strong_and_distinct(
    scored: list[tuple[float, Candidate]], floor: float
) -> list[tuple[float, Candidate]]:
    """Those scoring at least `floor` of the best, best first, each wording once."""
    top = max((value for value, _ in scored), default=0.0)
    remaining: list[tuple[float, Candidate]] = []
    seen_texts: set[str] = set()
    for item in sorted(
        # A sentence far weaker than the best one is filler, whatever room is left.
        (item for item in scored if item[0] > 0 and item[0] >= floor * top),
        key=lambda item: (-item[0], item[1].source_index, item[1].position),
    ):
        # The same words under several entries ("Not thread-safe.") say nothing particular.
        key = (item[1].said or item[1].text).casefold()
        if key not in seen_texts:
            seen_texts.add(key)
            remaining.append(item)
    return remaining


def _spread_over_sources(
    remaining: list[tuple[float, Candidate]], limit: int, spread: float
) -> list[Candidate]:
    """Up to `limit` picks, best first, each source's next sentence discounted by `spread`."""
    chosen: list[Candidate] = []
    taken: dict[int, int] = {}
    while remaining and len(chosen) < limit:
        best = max(
            range(len(remaining)),
            key=lambda i: (
                remaining[i][0] * spread ** taken.get(remaining[i][1].source_index, 0),
                -i,
            ),
        )
        _, candidate = remaining.pop(best)
        chosen.append(candidate)
        taken[candidate.source_index] = taken.get(candidate.source_index, 0) + 1
    return chosen
