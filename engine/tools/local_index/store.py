"""The local index's SQLite database: schema, connections, and the rows each file becomes.

One database holds any number of folders, each keyed by its resolved path. An index of an
older layout (another `SCHEMA_VERSION`) is simply rebuilt: it is a cache of the documents.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from engine.data_dir import private_dir, private_file
from engine.terminal_text import one_line, shown_name
from engine.tools.document_names import citation_key
from engine.tools.document_scan import FoundFile
from engine.tools.document_stream import stream_chunks, stream_title
from engine.tools.documents import ParsedDocument, refuse_binary
from engine.tools.extract import ExtractionError
from engine.tools.local_index.parse import STREAMED, Streamed

# 2: document keys made plain (engine/tools/document_names.py); 3: a heading line that is a
# sentence is text (engine/tools/documents.py). Older indexes are rebuilt.
SCHEMA_VERSION = 3
MMAP_BYTES = 256 * 1024 * 1024
CACHE_KIB = 16 * 1024
# Chunks written per statement while a big file streams in.
STREAM_BATCH = 1000

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
_INSERT_CHUNKS = (
    "INSERT INTO chunks (folder_id, rel_path, doc_key, title, heading, ordinal, body)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
# A file skipped for its size: a later refresh under a higher INDEX_MAX_FILE_BYTES takes it.
TOO_BIG = "too_big"
_INSERT_FILE = (
    "INSERT OR REPLACE INTO files (folder_id, rel_path, size, mtime_ns, title, status)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)

_readers = threading.local()


# ---- connections ---------------------------------------------------------------------------


def open_database(db_path: Path) -> sqlite3.Connection:
    """A connection to the index database, its schema created or rebuilt when out of date."""
    # What documents say is as private as the sessions that quote them.
    private_file(private_dir(db_path.parent) / db_path.name)
    conn = sqlite3.connect(db_path, timeout=30, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        _reset_schema(conn)
    return conn


@contextmanager
def writer(db_path: Path) -> Iterator[sqlite3.Connection]:
    """A fresh connection for writing, closed afterwards."""
    with closing(open_database(db_path)) as conn:
        yield conn


@contextmanager
def reader(db_path: Path) -> Iterator[sqlite3.Connection]:
    """This thread's long-lived connection for queries.

    SQLite's page cache belongs to a connection: a fresh connection per query re-reads
    the FTS5 structures every time, which costs ten times the query itself.
    """
    cache: dict[str, sqlite3.Connection] = _readers.__dict__.setdefault("by_path", {})
    key = str(db_path)
    conn = cache.get(key)
    if conn is None or not db_path.exists():
        if conn is not None:
            conn.close()
        conn = cache[key] = open_database(db_path)
    try:
        yield conn
    except sqlite3.DatabaseError:
        cache.pop(key, None)
        conn.close()
        raise


def _reset_schema(conn: sqlite3.Connection) -> None:
    # The index is a cache of the documents: an old layout is simply rebuilt.
    for name in ("chunks_ai", "chunks_ad"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in ("chunks_fts", "chunks", "files", "folders"):
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.executescript(_SCHEMA)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    conn.commit()


def folder_id(conn: sqlite3.Connection, folder: Path, *, create: bool) -> int | None:
    """The id of `folder` in this database; with `create`, added when it is new."""
    row = conn.execute("SELECT id FROM folders WHERE path = ?", (str(folder),)).fetchone()
    if row is not None:
        return int(row[0])
    if not create:
        return None
    cursor = conn.execute("INSERT INTO folders (path) VALUES (?)", (str(folder),))
    conn.commit()
    return int(cursor.lastrowid or 0)


# ---- files ---------------------------------------------------------------------------------


def known_files(conn: sqlite3.Connection, folder: int) -> dict[str, tuple[int, int]]:
    """The folder's files as last indexed: rel path -> (size, modification time in ns)."""
    return {
        rel: (size, mtime)
        for rel, size, mtime in conn.execute(
            "SELECT rel_path, size, mtime_ns FROM files WHERE folder_id = ?", (folder,)
        )
    }


def file_statuses(conn: sqlite3.Connection, folder: int) -> dict[str, str]:
    """The folder's files: rel path -> how the last refresh left it (`indexed`, `skipped`,
    `TOO_BIG`)."""
    return dict(conn.execute("SELECT rel_path, status FROM files WHERE folder_id = ?", (folder,)))


def forget_files(conn: sqlite3.Connection, folder: int, rels: Iterable[str]) -> None:
    """Drop files that are gone from the folder, with their chunks."""
    for rel in rels:
        conn.execute("DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder, rel))
        conn.execute("DELETE FROM files WHERE folder_id = ? AND rel_path = ?", (folder, rel))
    conn.commit()


def store_document(
    conn: sqlite3.Connection,
    folder: int,
    rel: str,
    size: int,
    mtime: int,
    parsed: ParsedDocument | None,
    status: str | None = None,
) -> None:
    """Replace a file's chunks with the parsed document's (none when it was skipped);
    `status` says why a skipped one was (`TOO_BIG`), when it is not a failed parse."""
    conn.execute("DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder, rel))
    if parsed is not None:
        conn.executemany(
            _INSERT_CHUNKS,
            [
                (folder, rel, chunk.key, parsed.title, chunk.heading, ordinal, chunk.text)
                for ordinal, chunk in enumerate(parsed.chunks)
            ],
        )
    conn.execute(
        _INSERT_FILE,
        (
            folder,
            rel,
            size,
            mtime,
            parsed.title if parsed else "",
            status or ("indexed" if parsed else "skipped"),
        ),
    )
    conn.commit()


def store_streamed(
    conn: sqlite3.Connection, folder: int, rel: str, file: FoundFile
) -> tuple[Streamed | None, str | None]:
    """Index a big text or Markdown file chunk by chunk, a batch per statement."""
    key = citation_key(rel)
    name = key.rsplit("/", 1)[-1]
    markdown = file.path.suffix.lower() != ".txt"
    conn.execute("DELETE FROM chunks WHERE folder_id = ? AND rel_path = ?", (folder, rel))
    try:
        refuse_binary(file.path)
        title = one_line(stream_title(file.path, markdown, name)) or name
        rows = (
            (folder, rel, chunk.key, title, one_line(chunk.heading) or title, n, chunk.text)
            for n, chunk in enumerate(stream_chunks(file.path, key, title, markdown))
        )
        while batch := list(itertools.islice(rows, STREAM_BATCH)):
            conn.executemany(_INSERT_CHUNKS, batch)
    except (OSError, ExtractionError) as exc:
        conn.rollback()
        reason = str(exc) if isinstance(exc, ExtractionError) else type(exc).__name__
        store_document(conn, folder, rel, file.size, file.mtime_ns, None)
        return None, f"skipped {shown_name(rel)}: {reason}"
    conn.execute(_INSERT_FILE, (folder, rel, file.size, file.mtime_ns, title, "indexed"))
    conn.commit()
    return STREAMED, None


def finish_refresh(conn: sqlite3.Connection) -> None:
    """Merge the full-text index's segments and leave a complete main database file."""
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
    conn.commit()
    # Leave a complete main file, so the index can be copied as one file.
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def chunk_count(conn: sqlite3.Connection, folder: int) -> int:
    """How many chunks the folder's documents have in the index."""
    count = conn.execute("SELECT count(*) FROM chunks WHERE folder_id = ?", (folder,))
    return int(count.fetchone()[0])
