"""The local index: an SQLite FTS5 (BM25) index of folders of documents.

`LocalIndex` (index.py) refreshes and searches one folder. Beside it: the query words
(words.py), parsing files in worker processes (parse.py), the database and the rows each file
becomes (store.py), and the relaxed queries that rank chunks (ranking.py).
"""

from __future__ import annotations

import logging

from engine.tools.local_index.index import IndexStats, LocalDocument, LocalHit, LocalIndex

# What is skipped comes back in IndexStats.warnings for the caller to show; without a handler
# of its own, Python's last-resort handler would print each one a second time on stderr.
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = ["IndexStats", "LocalDocument", "LocalHit", "LocalIndex"]
