"""The words a claim and a passage are compared by: content words, stemmed."""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

from engine.sourcing.attribution import content_words

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    # Porter2, so "initializes"/"initialize" and "cancelled"/"cancels" meet; code names
    # (`re.search`, `wait_for`) are matched as written.
    if "." in word or "_" in word:
        return word
    return _STEMMER.stemWord(word)


def stemmed_words(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in content_words(text))
