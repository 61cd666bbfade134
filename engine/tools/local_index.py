"""LocalIndex: an SQLite FTS5 (BM25) index of a folder of documents.

One database (settings.index_db_path) holds any number of folders, each keyed by its resolved
path. `refresh()` re-reads only files whose size or modification time changed, drops files
that disappeared, and skips a file it cannot read with a warning naming it (the file is
remembered, so it is retried only once it changes). `search()` turns free text into a safe
FTS5 query (terms are quoted, so quotes, operators, very long and non-Latin queries are all
just words) and returns the best chunks, at most two per document.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from engine.config import Settings
from engine.data_dir import private_dir, private_file
from engine.terminal_text import one_line
from engine.tools.document_names import citation_key
from engine.tools.document_scan import FoundFile, scan_folder
from engine.tools.document_stream import STREAMED_SUFFIXES, stream_chunks, stream_title
from engine.tools.documents import ParsedDocument, parse_file, refuse_binary
from engine.tools.extract import ExtractionError

logger = logging.getLogger(__name__)
# What is skipped comes back in IndexStats.warnings for the caller to show; without a handler
# of its own, Python's last-resort handler would print each one a second time on stderr.
logger.addHandler(logging.NullHandler())

# 2: document keys made plain (engine/tools/document_names.py); older indexes are rebuilt.
SCHEMA_VERSION = 2
MAX_QUERY_TERMS = 24
MAX_TERM_CHARS = 64
MAX_CHUNKS_PER_DOCUMENT = 2
MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 16 * 1024
# At most this many chunks are scored for an OR query (each scored chunk costs a few µs).
OR_SCORING_BUDGET = 4000
# Chunks missing one query word (queries of up to 10 words), then two (up to 7): each is
# a cheap AND query, 10 and 21 of them at most.
MAX_WORDS_MISSING = 2
LEAVE_OUT_MAX_TERMS = {1: 10, 2: 7}
Progress = Callable[[int, int, str], None]
DEFAULT_MAX_FILE_BYTES = Settings.model_fields["index_max_file_bytes"].default
# Text and Markdown files from this size on are chunked as they are read, in this process.
STREAM_MIN_BYTES = 1_000_000
# Chunks written per statement while a big file streams in.
STREAM_BATCH = 1000

_TERM = re.compile(r"\w+", re.UNICODE)
# Words too common to help BM25 pick a passage; dropped unless nothing else is left.
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS folders (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS files (
    folder_id INTEGER NOT NULL, rel_path TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, title TEXT NOT NULL, status TEXT NOT NULL,
    PRIMARY KEY (folder_id, rel_path)
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, folder_id INTEGER NOT NULL, rel_path TEXT NOT NULL,
    doc_key TEXT NOT NULL, title TEXT NOT NULL, heading TEXT NOT NULL,
    ordinal INTEGER NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks (folder_id, rel_path);
CREATE INDEX IF NOT EXISTS chunks_by_key ON chunks (folder_id, doc_key, ordinal);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    title, heading, body, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, title, heading, body)
    VALUES (new.id, new.title, new.heading, new.body);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, body)
    VALUES ('delete', old.id, old.title, old.heading, old.body);
END;
"""


@dataclass(frozen=True)
class IndexStats:
    """What one refresh did."""

    files_indexed: int = 0
    files_unchanged: int = 0
    files_skipped: int = 0
    files_removed: int = 0
    chunks: int = 0
    seconds: float = 0.0
    warnings: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class LocalHit:
    """One matching chunk: its document key, titles and passage text."""

    document_key: str
    title: str
    heading: str
    passage: str
    score: float


@dataclass(frozen=True)
class LocalDocument:
    key: str
    title: str
    text: str


def query_terms(text: str) -> list[str]:
    """The distinct words of a query, stopwords dropped unless nothing else is left."""
    terms: list[str] = []
    for term in _TERM.findall(text.lower()):
        term = term.strip("_")[:MAX_TERM_CHARS]
        if term and term not in terms:
            terms.append(term)
    meaningful = [term for term in terms if term not in _STOPWORDS] or terms
    return meaningful[:MAX_QUERY_TERMS]


def fts_query(text: str, operator: str = "OR") -> str | None:
    """A safe FTS5 MATCH expression (each term quoted, joined by OR or AND), or None."""
    terms = query_terms(text)
    if not terms:
        return None
    return f" {operator} ".join(f'"{term}"' for term in terms)


class _Streamed:
    """Stands for a document indexed as it was read, never held whole."""


STREAMED = _Streamed()
_ParseOutcome = tuple[str, "ParsedDocument | _Streamed | None", "str | None"]
# Starting workers costs a second or two (each imports trafilatura): only worth it for big batches.
PARALLEL_MIN_BYTES = 1_500_000


Parser = Callable[[Path, str], ParsedDocument]


def _parse_job(job: tuple[str, str], parser: Parser = parse_file) -> _ParseOutcome:
    """Parse one file (runs in a worker process): (rel path, document or None, warning)."""
    path, rel = job
    try:
        return rel, parser(Path(path), rel), None
    except Exception as exc:  # a corrupt file must never abort the index: skip it, say why
        reason = str(exc) if isinstance(exc, ExtractionError) else type(exc).__name__
        return rel, None, f"skipped {rel}: {reason}"


def _can_spawn() -> bool:
    """Whether spawned workers can re-create `__main__` (not so for `python - < script`)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    return main_file is None or Path(main_file).is_file()


_readers = threading.local()
_fresh_lock = threading.Lock()
_fresh: set[tuple[str, str]] = set()


class LocalIndex:
    """The FTS5 index of one folder inside a shared SQLite database."""

    def __init__(
        self,
        db_path: Path,
        folder: Path,
        *,
        workers: int | None = None,
        parser: Parser | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self.db_path = Path(db_path)
        # Bigger files are skipped with a warning (INDEX_MAX_FILE_BYTES): HTML and PDF are
        # parsed whole, so this is what bounds the memory they take.
        self.max_file_bytes = max_file_bytes
        self.folder = Path(folder).expanduser().resolve()
        # Text extraction is CPU-bound (trafilatura): parse big batches in worker processes.
        self.workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
        # A custom parser (benchmarks, tests) always runs in this process.
        self.parser = parser

    def _parse_all(self, jobs: list[tuple[str, str]], total_bytes: int) -> Iterator[_ParseOutcome]:
        """Parse files in order, in worker processes when there are enough of them."""
        parsed = 0
        if self.parser is not None:
            for job in jobs:
                yield _parse_job(job, self.parser)
            return
        parallel = self.workers > 1 and len(jobs) > 1 and total_bytes >= PARALLEL_MIN_BYTES
        if parallel and _can_spawn():
            try:
                context = multiprocessing.get_context("spawn")  # fork is unsafe with threads
                with ProcessPoolExecutor(min(self.workers, len(jobs)), mp_context=context) as pool:
                    for outcome in pool.map(_parse_job, jobs):
                        parsed += 1
                        yield outcome
                return
            except (OSError, ValueError, BrokenProcessPool) as exc:
                # ValueError: inside the app, Textual's stand-in stderr has no usable file
                # descriptor, and multiprocessing cannot start its resource tracker.
                logger.info(
                    "worker processes unavailable (%s); parsing the rest in this process",
                    type(exc).__name__,
                )
        for job in jobs[parsed:]:
            yield _parse_job(job)

    # ---- connection ----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        # What documents say is as private as the sessions that quote them.
        private_file(private_dir(self.db_path.parent) / self.db_path.name)
        conn = sqlite3.connect(self.db_path, timeout=30, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self._reset_schema(conn)
        return conn

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh connection for writing, closed afterwards."""
        with closing(self._open()) as conn:
            yield conn

    @contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """This thread's long-lived connection for queries.

        SQLite's page cache belongs to a connection: a fresh connection per query re-reads
        the FTS5 structures every time, which costs ten times the query itself.
        """
        cache: dict[str, sqlite3.Connection] = _readers.__dict__.setdefault("by_path", {})
        key = str(self.db_path)
        conn = cache.get(key)
        if conn is None or not self.db_path.exists():
            if conn is not None:
                conn.close()
            conn = cache[key] = self._open()
        try:
            yield conn
        except sqlite3.DatabaseError:
            cache.pop(key, None)
            conn.close()
            raise

    @staticmethod
    def _reset_schema(conn: sqlite3.Connection) -> None:
        # The index is a cache of the documents: an old layout is simply rebuilt.
        for name in ("chunks_ai", "chunks_ad"):
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        for name in ("chunks_fts", "chunks", "files", "folders"):
            conn.execute(f"DROP TABLE IF EXISTS {name}")
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.commit()

    def _folder_id(self, conn: sqlite3.Connection, *, create: bool) -> int | None:
        row = conn.execute("SELECT id FROM folders WHERE path = ?", (str(self.folder),)).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        cursor = conn.execute("INSERT INTO folders (path) VALUES (?)", (str(self.folder),))
        conn.commit()
        return int(cursor.lastrowid or 0)

    # ---- indexing ------------------------------------------------------------------------

    def refresh(self, progress: Progress | None = None) -> IndexStats:
        """Bring the index up to date with the folder; report what changed."""
        started = time.perf_counter()
        if not self.folder.is_dir():
            raise FileNotFoundError(f"documents folder not found: {self.folder}")
        scan = scan_folder(self.folder)
        found = scan.files
        for warning in scan.warnings:
            logger.warning("%s", warning)
        with self._connect() as conn:
            folder_id = self._folder_id(conn, create=True)
            known = {
                rel: (size, mtime)
                for rel, size, mtime in conn.execute(
                    "SELECT rel_path, size, mtime_ns FROM files WHERE folder_id = ?", (folder_id,)
                )
            }
            changed = [
                rel for rel, file in found.items() if known.get(rel) != (file.size, file.mtime_ns)
            ]
            removed = [rel for rel in known if rel not in found]
            for rel in removed:
                conn.execute(
                    "DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder_id, rel)
                )
                conn.execute(
                    "DELETE FROM files WHERE folder_id = ? AND rel_path = ?", (folder_id, rel)
                )
            conn.commit()

            indexed = 0
            skipped = len(scan.warnings)
            warnings: list[str] = list(scan.warnings)
            too_big = [rel for rel in changed if found[rel].size > self.max_file_bytes]
            streamed = [
                rel
                for rel in changed
                if rel not in too_big
                and found[rel].size >= STREAM_MIN_BYTES
                and found[rel].path.suffix.lower() in STREAMED_SUFFIXES
                and self.parser is None
            ]
            pooled = [rel for rel in changed if rel not in too_big and rel not in streamed]
            jobs = [(str(found[rel].path), rel) for rel in pooled]
            total_bytes = sum(found[rel].size for rel in pooled)
            outcomes = itertools.chain(
                ((rel, None, self._too_big(rel, found[rel].size)) for rel in too_big),
                self._parse_all(jobs, total_bytes),
                ((rel, STREAMED, None) for rel in streamed),
            )
            for done, (rel, parsed, problem) in enumerate(outcomes, start=1):
                size, mtime = found[rel].size, found[rel].mtime_ns
                if parsed is STREAMED:
                    parsed, problem = self._store_streamed(conn, folder_id or 0, rel, found[rel])
                elif not isinstance(parsed, _Streamed):
                    self._store(conn, folder_id or 0, rel, size, mtime, parsed)
                if problem is not None:
                    warnings.append(problem)
                    logger.warning("%s", problem)
                if parsed is None:
                    skipped += 1
                else:
                    indexed += 1
                if progress is not None:
                    progress(done, len(changed), rel)
            if changed or removed:
                conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
                conn.commit()
                # Leave a complete main file, so the index can be copied as one file.
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            chunk_count = conn.execute(
                "SELECT count(*) FROM chunks WHERE folder_id = ?", (folder_id,)
            ).fetchone()[0]
        return IndexStats(
            files_indexed=indexed,
            files_unchanged=len(found) - len(changed),
            files_skipped=skipped,
            files_removed=len(removed),
            chunks=int(chunk_count),
            seconds=time.perf_counter() - started,
            warnings=tuple(warnings),
        )

    @staticmethod
    def _store(
        conn: sqlite3.Connection,
        folder_id: int,
        rel: str,
        size: int,
        mtime: int,
        parsed: ParsedDocument | None,
    ) -> None:
        conn.execute("DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder_id, rel))
        if parsed is not None:
            conn.executemany(
                "INSERT INTO chunks (folder_id, rel_path, doc_key, title, heading, ordinal, body)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (folder_id, rel, chunk.key, parsed.title, chunk.heading, ordinal, chunk.text)
                    for ordinal, chunk in enumerate(parsed.chunks)
                ],
            )
        conn.execute(
            "INSERT OR REPLACE INTO files (folder_id, rel_path, size, mtime_ns, title, status)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                folder_id,
                rel,
                size,
                mtime,
                parsed.title if parsed else "",
                "indexed" if parsed else "skipped",
            ),
        )
        conn.commit()

    def _too_big(self, rel: str, size: int) -> str:
        return (
            f"skipped {rel}: {size:,} bytes is over INDEX_MAX_FILE_BYTES "
            f"({self.max_file_bytes:,} bytes)"
        )

    def _store_streamed(
        self, conn: sqlite3.Connection, folder_id: int, rel: str, file: FoundFile
    ) -> tuple[_Streamed | None, str | None]:
        """Index a big text or Markdown file chunk by chunk, a batch per statement."""
        key = citation_key(rel)
        name = key.rsplit("/", 1)[-1]
        markdown = file.path.suffix.lower() != ".txt"
        conn.execute("DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder_id, rel))
        try:
            refuse_binary(file.path)
            title = one_line(stream_title(file.path, markdown, name)) or name
            rows = (
                (folder_id, rel, chunk.key, title, one_line(chunk.heading) or title, n, chunk.text)
                for n, chunk in enumerate(stream_chunks(file.path, key, title, markdown))
            )
            while batch := list(itertools.islice(rows, STREAM_BATCH)):
                conn.executemany(
                    "INSERT INTO chunks (folder_id, rel_path, doc_key, title, heading, ordinal,"
                    " body) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    batch,
                )
        except (OSError, ExtractionError) as exc:
            conn.rollback()
            reason = str(exc) if isinstance(exc, ExtractionError) else type(exc).__name__
            self._store(conn, folder_id, rel, file.size, file.mtime_ns, None)
            return None, f"skipped {rel}: {reason}"
        conn.execute(
            "INSERT OR REPLACE INTO files (folder_id, rel_path, size, mtime_ns, title, status)"
            " VALUES (?, ?, ?, ?, ?, 'indexed')",
            (folder_id, rel, file.size, file.mtime_ns, title),
        )
        conn.commit()
        return STREAMED, None

    def ensure_fresh(self, progress: Progress | None = None) -> IndexStats | None:
        """Refresh once per process for this database and folder (the first search does it,
        unless the app got there first); a search arriving meanwhile waits for it."""
        key = (str(self.db_path), str(self.folder))
        with _fresh_lock:
            if key in _fresh:
                return None
            stats = self.refresh(progress)
            _fresh.add(key)
            return stats

    # ---- querying ------------------------------------------------------------------------

    def search(self, query: str, limit: int) -> list[LocalHit]:
        """The best chunks for `query` by BM25, at most two per document, best first."""
        terms = query_terms(query)
        if not terms or limit <= 0 or not self.db_path.exists():
            return []
        wanted = limit * 4  # room for the per-document cap
        with self._reader() as conn:
            folder_id = self._folder_id(conn, create=False)
            if folder_id is None:
                return []
            rows = self._relaxed_matches(conn, terms, folder_id, limit, wanted)
        hits: list[LocalHit] = []
        per_document: dict[str, int] = {}
        for _id, key, title, heading, body, score in rows:
            if per_document.get(key, 0) >= MAX_CHUNKS_PER_DOCUMENT:
                continue
            per_document[key] = per_document.get(key, 0) + 1
            label = title if heading == title else f"{title} — {heading}"
            # bm25() is lower-is-better; flip it so higher means more relevant everywhere.
            hits.append(LocalHit(key, label, heading, body, -float(score)))
            if len(hits) >= limit:
                break
        return hits

    def _relaxed_matches(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        folder_id: int,
        limit: int,
        wanted: int,
    ) -> list[tuple[int, str, str, str, str, float]]:
        """Chunks with every term first; then, while too few, drop the commonest term.

        Scoring a chunk is what costs time, so only small candidate sets are ever scored: an
        OR over common words would score most of a big index.
        """

        def quoted(words: list[str], operator: str) -> str:
            return f" {operator} ".join(f'"{word}"' for word in words)

        rows = self._ranked(conn, quoted(terms, "AND"), folder_id, wanted)
        if len(rows) >= limit or len(terms) == 1:
            return rows
        seen = {row[0] for row in rows}
        # A question's words are rarely all in the passage that answers it ("How many
        # listeners…" vs "a maximum of 10 listeners"): chunks missing one word, then two,
        # ranked together, come before any guess about which word matters least.
        for missing in range(1, MAX_WORDS_MISSING + 1):
            if len(terms) - missing < 2 or len(terms) > LEAVE_OUT_MAX_TERMS[missing]:
                break
            tier: list[tuple[int, str, str, str, str, float]] = []
            for left_out in combinations(range(len(terms)), missing):
                kept = [term for i, term in enumerate(terms) if i not in left_out]
                for row in self._ranked(conn, quoted(kept, "AND"), folder_id, wanted):
                    if row[0] not in seen:
                        seen.add(row[0])
                        tier.append(row)
            rows += sorted(tier, key=lambda row: (row[5], row[0]))[:wanted]
            if len(rows) >= limit:
                return rows
        frequency = {
            term: conn.execute(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',)
            ).fetchone()[0]
            for term in terms
        }
        rarest_first = sorted(terms, key=lambda term: (frequency[term], term))
        subset = rarest_first
        while len(rows) < limit and len(subset) > 1:
            subset = subset[:-1]
            for row in self._ranked(conn, quoted(subset, "AND"), folder_id, wanted):
                if row[0] not in seen:
                    seen.add(row[0])
                    rows.append(row)
        if len(rows) < limit:
            # Last resort: any of the rarer terms, as many as fit the scoring budget.
            budget, chosen = 0, list[str]()
            for term in rarest_first:
                if chosen and budget + frequency[term] > OR_SCORING_BUDGET:
                    break
                budget += frequency[term]
                chosen.append(term)
            for row in self._ranked(conn, quoted(chosen, "OR"), folder_id, wanted):
                if row[0] not in seen:
                    seen.add(row[0])
                    rows.append(row)
        return rows

    @staticmethod
    def _ranked(
        conn: sqlite3.Connection, match: str, folder_id: int, limit: int
    ) -> list[tuple[int, str, str, str, str, float]]:
        """Best `limit` chunks of this folder for an FTS5 expression: (id, key, title,
        heading, body, bm25), best first."""
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
            rows_with_scores = conn.execute(
                "SELECT c.id, c.doc_key, c.title, c.heading, c.body,"
                " bm25(chunks_fts, 1.5, 2.0, 1.0) AS score"
                " FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
                " WHERE chunks_fts MATCH ? AND c.folder_id = ?"
                " ORDER BY score, c.id LIMIT ?",
                (match, folder_id, limit),
            ).fetchall()
            return [tuple(row) for row in rows_with_scores]
        ranked = [(*row, scores[int(row[0])]) for row in rows]
        ranked.sort(key=lambda row: (row[5], row[0]))
        return [tuple(row) for row in ranked]

    def document(self, key: str) -> LocalDocument | None:
        """The full text of one document (or one PDF page) by its key, or None."""
        if not self.db_path.exists():
            return None  # never indexed: don't create an empty database as a side effect
        with self._reader() as conn:
            folder_id = self._folder_id(conn, create=False)
            if folder_id is None:
                return None
            rows = conn.execute(
                "SELECT title, heading, body FROM chunks WHERE folder_id = ? AND doc_key = ?"
                " ORDER BY ordinal",
                (folder_id, key),
            ).fetchall()
        if not rows:
            return None
        parts: list[str] = []
        previous_heading = None
        for title, heading, body in rows:
            if heading != previous_heading and heading != title:
                parts.append(f"## {heading}")
            previous_heading = heading
            parts.append(body)
        return LocalDocument(key=key, title=rows[0][0], text="\n\n".join(parts))
