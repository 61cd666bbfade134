"""The words a claim and a passage are compared by: content words, stemmed."""

from __future__ import annotations

import threading
from functools import lru_cache

import snowballstemmer

from engine.sourcing.attribution import content_words

# A stemmer keeps state between calls: one per thread (grounding runs in worker threads).
_local = threading.local()


def _stemmer() -> snowballstemmer.stemmer:
    found = getattr(_local, "stemmer", None)
    if found is None:
        found = _local.stemmer = snowballstemmer.stemmer("english")
    return found


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    # Porter2, so "initializes"/"initialize" and "cancelled"/"cancels" meet; code names
    # (`re.search`, `wait_for`) are matched as written.
    if "." in word or "_" in word:
        return word
    return _stemmer().stemWord(word)


def stemmed_words(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in content_words(text))
