"""The local index's queries: chunks with every query word first, then missing one or two,
then any of them ranked by BM25.

Scoring a chunk is what costs time, so only small candidate sets are ever scored: an OR over
common words would score most of a big index. A row is (id, document key, title, heading,
body, bm25); bm25() is lower-is-better.
"""

from __future__ import annotations

import sqlite3
from itertools import combinations

from engine.tools.local_index.words import quoted

Row = tuple[int, str, str, str, str, float]

# At most this many chunks are scored for an OR query (each scored chunk costs a few µs).
OR_SCORING_BUDGET = 4000
# Chunks missing one query word (queries of up to 10 words), then two (up to 7): each is
# a cheap AND query, 10 and 21 of them at most.
MAX_WORDS_MISSING = 2
LEAVE_OUT_MAX_TERMS = {1: 10, 2: 7}


def relaxed_matches(
    conn: sqlite3.Connection, terms: list[str], folder_id: int, limit: int, wanted: int
) -> list[Row]:
    """Chunks with every term first; then, while too few, those missing one term, then two;
    then those with any of the terms (the rarest that fit the scoring budget), by BM25."""
    rows = ranked(conn, quoted(terms, "AND"), folder_id, wanted)
    if len(rows) >= limit or len(terms) == 1:
        return rows
    seen = {row[0] for row in rows}
    # A question's words are rarely all in the passage that answers it ("How many
    # listeners…" vs "a maximum of 10 listeners"): chunks missing one word, then two,
    # ranked together, come before any guess about which word matters least.
    for missing in range(1, MAX_WORDS_MISSING + 1):
        if len(terms) - missing < 2 or len(terms) > LEAVE_OUT_MAX_TERMS[missing]:
            break
        rows += _missing_words(conn, terms, missing, folder_id, wanted, seen)
        if len(rows) >= limit:
            return rows
    # Then every chunk with any of the words, ranked by BM25, where each word counts by how
    # rare it is. Requiring ever fewer words, commonest dropped first, kept a question's rarest
    # word mandatory however incidental ("decide" in "how does autovacuum decide when to
    # vacuum…": three chunks have it, the lock-timeout page first), and put the pages with
    # every other word behind it; ranked as one, they lead.
    frequency = {term: _frequency(conn, term) for term in terms}
    rarest_first = sorted(terms, key=lambda term: (frequency[term], term))
    chosen = _within_scoring_budget(rarest_first, frequency)
    rows += _unseen(ranked(conn, quoted(chosen, "OR"), folder_id, wanted), seen)
    return rows


def _missing_words(
    conn: sqlite3.Connection,
    terms: list[str],
    missing: int,
    folder_id: int,
    wanted: int,
    seen: set[int],
) -> list[Row]:
    """The best new chunks that have every term but `missing` of them, ranked together."""
    tier: list[Row] = []
    for left_out in combinations(range(len(terms)), missing):
        kept = [term for i, term in enumerate(terms) if i not in left_out]
        tier += _unseen(ranked(conn, quoted(kept, "AND"), folder_id, wanted), seen)
    return sorted(tier, key=lambda row: (row[5], row[0]))[:wanted]


def _unseen(rows: list[Row], seen: set[int]) -> list[Row]:
    """The rows not seen before, in order; they count as seen from now on."""
    fresh: list[Row] = []
    for row in rows:
        if row[0] not in seen:
            seen.add(row[0])
            fresh.append(row)
    return fresh


def _frequency(conn: sqlite3.Connection, term: str) -> int:
    """How many chunks (of any folder) contain the term."""
    match = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',))
    return int(match.fetchone()[0])


def _within_scoring_budget(rarest_first: list[str], frequency: dict[str, int]) -> list[str]:
    """The rarest terms whose chunks together fit the OR scoring budget (at least one)."""
    budget, chosen = 0, list[str]()
    for term in rarest_first:
        if chosen and budget + frequency[term] > OR_SCORING_BUDGET:
            break
        budget += frequency[term]
        chosen.append(term)
    return chosen


def ranked(conn: sqlite3.Connection, match: str, folder_id: int, limit: int) -> list[Row]:
    """Best `limit` chunks of this folder for an FTS5 expression, best first."""
    # Rank inside FTS5 alone first (no join, no bodies in the sorter): this is what keeps
    # queries fast on big indexes. Bodies are read for the winners only.
    top = conn.execute(
        "SELECT rowid, bm25(chunks_fts, 1.5, 2.0, 1.0) AS score FROM chunks_fts"
        " WHERE chunks_fts MATCH ? ORDER BY score, rowid LIMIT ?",
        (match, limit),
    ).fetchall()
    scores = {int(rowid): float(score) for rowid, score in top}
    marks = ",".join("?" * len(scores))
    # Look the winners up by primary key only; filtering on folder_id in SQL would let
    # the planner scan the whole folder through its index instead.
    found = (
        conn.execute(
            f"SELECT id, doc_key, title, heading, body, folder_id FROM chunks"  # noqa: S608
            f" WHERE id IN ({marks})",
            tuple(scores),
        ).fetchall()
        if scores
        else []
    )
    rows = [row[:5] for row in found if row[5] == folder_id]
    if len(rows) < len(scores):
        # Other folders share this database and took some of the places: rank with the
        # folder filter applied inside the query instead.
        return _ranked_in_folder(conn, match, folder_id, limit)
    ranked_rows = [(*row, scores[int(row[0])]) for row in rows]
    ranked_rows.sort(key=lambda row: (row[5], row[0]))
    return [tuple(row) for row in ranked_rows]


def _ranked_in_folder(
    conn: sqlite3.Connection, match: str, folder_id: int, limit: int
) -> list[Row]:
    """Best `limit` chunks of this folder, the folder filter inside the FTS5 query."""
    rows_with_scores = conn.execute(
        "SELECT c.id, c.doc_key, c.title, c.heading, c.body,"
        " bm25(chunks_fts, 1.5, 2.0, 1.0) AS score"
        " FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
        " WHERE chunks_fts MATCH ? AND c.folder_id = ?"
        " ORDER BY score, c.id LIMIT ?",
        (match, folder_id, limit),
    ).fetchall()
    return [tuple(row) for row in rows_with_scores]
