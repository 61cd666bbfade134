"""Whether a model's clarifying question asks the person anything their question left open.

A small model asked to clarify often rephrases the question back ("What are the criteria for
PostgreSQL's autovacuum to decide when to vacuum a table?" for "How does PostgreSQL autovacuum
decide when to vacuum a table?"): the person can only repeat themselves, and waits a model
call for it. A question worth asking brings words of its own: the alternatives to choose
between, the dimension left open ("Which version?", "Europe or Asia?").
"""

from __future__ import annotations

import re

from engine.text.words import content_tokens

_NUMBER = re.compile(r"\b\d[\w.]*")

# The share of a clarifying question's content words the person's question lacks, below
# which it only asks the question back.
NEW_WORDS_SHARE = 0.25


def _numbers(text: str) -> set[str]:
    """Versions and figures ("1.x", "16"), which the content words leave out as too short."""
    return {match.casefold() for match in _NUMBER.findall(text)}


def asks_the_question_back(clarification: str, question: str) -> bool:
    """True when almost every content word of `clarification` is already in `question`."""
    asked = content_tokens(clarification) | _numbers(clarification)
    if not asked:
        return False  # nothing to compare by: the model's judgment stands
    new = asked - content_tokens(question) - _numbers(question)
    return len(new) / len(asked) < NEW_WORDS_SHARE
