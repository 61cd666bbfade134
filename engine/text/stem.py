"""One stemmer for the whole engine: the Porter algorithm, as the local index's FTS5 uses.

The index tokenizes with SQLite's `porter` tokenizer, which no Python code can call; the
Snowball project's `porter` stemmer is the same algorithm, so a word the index matches and a
word the reranker or grounding compares reduce to the same stem (`cancelled`, `cancels` and
`cancellation` all to `cancel`).
"""

from __future__ import annotations

import threading
from functools import lru_cache

import snowballstemmer

# The local index's FTS5 tokenizer: Porter over unicode61, the stemmer `stem` reproduces.
FTS5_TOKENIZER = "porter unicode61 remove_diacritics 2"

# A Snowball stemmer keeps state between calls: one per thread (grounding and the reranker
# run in worker threads).
_local = threading.local()


def _stemmer() -> snowballstemmer.stemmer:
    found = getattr(_local, "stemmer", None)
    if found is None:
        found = _local.stemmer = snowballstemmer.stemmer("porter")
    return found


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The stem of a lower-case word; a code name (`re.search`, `wait_for`) stays as written."""
    if "." in word or "_" in word:
        return word
    return _stemmer().stemWord(word)
