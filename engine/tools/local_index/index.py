"""LocalIndex: one folder's documents in the shared index database, refreshed and searched.

`refresh()` re-reads only files whose size or modification time changed, drops files that
disappeared, and skips a file it cannot read with a warning naming it (the file is
remembered, so it is retried only once it changes). `search()` returns the best chunks, at
most two per document.
"""

from __future__ import annotations

import itertools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.config import Settings
from engine.terminal_text import shown_name
from engine.tools.document_scan import FoundFile, scan_folder
from engine.tools.document_stream import STREAMED_SUFFIXES
from engine.tools.local_index.parse import STREAMED, ParseOutcome, Parser, Streamed, parse_all
from engine.tools.local_index.ranking import relaxed_matches
from engine.tools.local_index.store import (
    TOO_BIG,
    chunk_count,
    file_statuses,
    finish_refresh,
    folder_id,
    forget_files,
    known_files,
    reader,
    store_document,
    store_streamed,
    writer,
)
from engine.tools.local_index.words import query_terms

logger = logging.getLogger(__name__)

MAX_CHUNKS_PER_DOCUMENT = 2
Progress = Callable[[int, int, str], None]
DEFAULT_MAX_FILE_BYTES = Settings.model_fields["index_max_file_bytes"].default
# Text and Markdown files from this size on are chunked as they are read, in this process.
STREAM_MIN_BYTES = 1_000_000


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
        with writer(self.db_path) as conn:
            folder = folder_id(conn, self.folder, create=True) or 0
            known = known_files(conn, folder)
            statuses = file_statuses(conn, folder)
            changed = [
                rel
                for rel, file in found.items()
                if known.get(rel) != (file.size, file.mtime_ns)
                or self._limit_decides_otherwise(statuses.get(rel), file.size)
            ]
            removed = [rel for rel in known if rel not in found]
            forget_files(conn, folder, removed)
            indexed, skipped, problems = self._index(conn, folder, found, changed, progress)
            if changed or removed:
                finish_refresh(conn)
            chunks = chunk_count(conn, folder)
        return IndexStats(
            files_indexed=indexed,
            files_unchanged=len(found) - len(changed),
            files_skipped=len(scan.warnings) + skipped,
            files_removed=len(removed),
            chunks=chunks,
            seconds=time.perf_counter() - started,
            warnings=(*scan.warnings, *problems),
        )

    def _index(
        self,
        conn: sqlite3.Connection,
        folder: int,
        found: dict[str, FoundFile],
        changed: list[str],
        progress: Progress | None,
    ) -> tuple[int, int, list[str]]:
        """Store every changed file: (files indexed, files skipped, the warnings)."""
        indexed, skipped, problems = 0, 0, list[str]()
        for done, (rel, parsed, problem) in enumerate(self._parsed(found, changed), start=1):
            file = found[rel]
            if parsed is STREAMED:
                parsed, problem = store_streamed(conn, folder, rel, file)
            elif not isinstance(parsed, Streamed):
                too_big = parsed is None and file.size > self.max_file_bytes
                status = TOO_BIG if too_big else None
                store_document(conn, folder, rel, file.size, file.mtime_ns, parsed, status)
            if problem is not None:
                problems.append(problem)
                logger.warning("%s", problem)
            if parsed is None:
                skipped += 1
            else:
                indexed += 1
            if progress is not None:
                progress(done, len(changed), rel)
        return indexed, skipped, problems

    def _parsed(self, found: dict[str, FoundFile], changed: list[str]) -> Iterator[ParseOutcome]:
        """Each changed file parsed: too big ones refused, big text streamed in later."""
        too_big = [rel for rel in changed if found[rel].size > self.max_file_bytes]
        streamed = [rel for rel in changed if rel not in too_big and self._streams(found[rel])]
        pooled = [rel for rel in changed if rel not in too_big and rel not in streamed]
        jobs = [(str(found[rel].path), rel) for rel in pooled]
        total_bytes = sum(found[rel].size for rel in pooled)
        return itertools.chain(
            ((rel, None, self._too_big(rel, found[rel].size)) for rel in too_big),
            parse_all(jobs, total_bytes, workers=self.workers, parser=self.parser),
            ((rel, STREAMED, None) for rel in streamed),
        )

    def _limit_decides_otherwise(self, status: str | None, size: int) -> bool:
        """Whether an unchanged file's size limit verdict differs under today's limit: one
        skipped as too big now fits, or one indexed is now over it."""
        if status == TOO_BIG:
            return size <= self.max_file_bytes
        return status == "indexed" and size > self.max_file_bytes

    def _streams(self, file: FoundFile) -> bool:
        """Whether the file is text big enough to be chunked as it is read."""
        return (
            file.size >= STREAM_MIN_BYTES
            and file.path.suffix.lower() in STREAMED_SUFFIXES
            and self.parser is None
        )

    def _too_big(self, rel: str, size: int) -> str:
        return (
            f"skipped {shown_name(rel)}: {size:,} bytes is over INDEX_MAX_FILE_BYTES "
            f"({self.max_file_bytes:,} bytes)"
        )

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
        with reader(self.db_path) as conn:
            folder = folder_id(conn, self.folder, create=False)
            if folder is None:
                return []
            rows = relaxed_matches(conn, terms, folder, limit, wanted)
        hits: list[LocalHit] = []
        per_document: dict[str, int] = {}
        for _id, key, title, heading, body, score in rows:
            if per_document.get(key, 0) >= MAX_CHUNKS_PER_DOCUMENT:
                continue
            per_document[key] = per_document.get(key, 0) + 1
            label = title if heading == title else f"{title} — {heading}"
            # bm25() is lower-is-better; flip it so higher means more relevant everywhere.
            # Rows come in tiers (every word, then one missing, …) scored by different
            # queries: a later tier's score is capped at the hit before it, so whoever sorts
            # by score keeps the tier order.
            relevance = -float(score)
            if hits:
                relevance = min(relevance, hits[-1].score)
            hits.append(LocalHit(key, label, heading, body, relevance))
            if len(hits) >= limit:
                break
        return hits

    def document(self, key: str) -> LocalDocument | None:
        """The full text of one document (or one PDF page) by its key, or None."""
        if not self.db_path.exists():
            return None  # never indexed: don't create an empty database as a side effect
        with reader(self.db_path) as conn:
            folder = folder_id(conn, self.folder, create=False)
            if folder is None:
                return None
            rows = conn.execute(
                "SELECT title, heading, body FROM chunks WHERE folder_id = ? AND doc_key = ?"
                " ORDER BY ordinal",
                (folder, key),
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
