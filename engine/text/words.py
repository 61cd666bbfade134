"""The words a text is compared by: its content words, and their stems."""

from __future__ import annotations

import re

from engine.text.stem import stem
from engine.text.stopwords import QUESTION_STOPWORDS, STOPWORDS

_WORD = re.compile(r"[a-z0-9_][a-z0-9_.]*[a-z0-9_]|[a-z0-9]", re.IGNORECASE)
_PLAIN_WORD = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> set[str]:
    """Lower-cased words of `text` that carry meaning (stopwords out).

    A dotted name also counts by its parts: `functools.lru_cache` matches `lru_cache`.
    """
    words: set[str] = set()
    for word in _WORD.findall(text):
        word = word.lower().strip(".")
        words.add(word)
        if "." in word:
            words.update(part for part in word.split(".") if part)
    return words - STOPWORDS


def stemmed_words(text: str) -> frozenset[str]:
    """The stems of `content_words(text)`: `cancelled` and `cancellation` are one word."""
    return frozenset(stem(word) for word in content_words(text))


def content_tokens(text: str) -> set[str]:
    """Lower-cased content words of a question or a plan, stemmed, so "caches" meets "cache"."""
    tokens = set()
    for word in _PLAIN_WORD.findall(text.lower()):
        if word in QUESTION_STOPWORDS or len(word) < 3:
            continue
        tokens.add(stem(word))
    return tokens
