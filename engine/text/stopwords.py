"""The engine's stopwords: words that say nothing of what a text is about.

`STOPWORDS` are function words (articles, pronouns, auxiliaries, prepositions, conjunctions):
retrieval drops them from a query, reranking from its terms,
grounding and citation from the words a sentence and a passage are compared by. A claim's
quantifiers ("most", "only", "all") are not among them: they are what a claim says.

`QUESTION_STOPWORDS` adds what a question is phrased with and never asks about: the words it
asks with ("explain", "compare", "difference") and its other function words. It is for
reading a question (the offline model, telling a follow-up from a new topic), not a claim.
"""

from __future__ import annotations

import re

_FUNCTION_WORDS = """
a also an and are as at be been but by can do does for from had has have how i if in into is
it its may might not of on one or should so such than that the their them then there these they
this those to was were what when where which who why will with you your
"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())

_QUESTION_PHRASING = """
about above after again against all am any aren because before being below between both cannot
could did doing don down during each either else ever every few further get gets got having he
her here hers him his isn itself just let like made make makes many me more most much must my
neither no nor now off once only other ought our ours out over own per please same shall she
some theirs through thus too under until up upon us very via we whether while whom whose within
without would yes yet yours use used using tell explain describe show give find list versus vs
compare compared comparison difference differences differ different work works way ways thing
things
"""
QUESTION_STOPWORDS = STOPWORDS | frozenset(_QUESTION_PHRASING.split())

# A word written in capitals names something (`GET`, `HEAD`, `ALL` as a constant), even when
# its lower case is a stopword ("get", "all").
_CAPITALS = re.compile(r"^[A-Z]{3,}$")


def is_question_stopword(written: str) -> bool:
    """Whether a word of a question, as written, carries no meaning: a question stopword in any
    case but capitals (`get` is one, the HTTP method `GET` is not)."""
    return written.lower() in QUESTION_STOPWORDS and not _CAPITALS.match(written)
