"""A retrieved-source registry and a checker shared by the real-model citation format tests.

The registry holds what a research run on SQLite and asyncio plausibly retrieved: web pages
with their titles and pages of a local operations guide. `outcome` runs an answer through the
engine's post-processing (verify, then sanitize) and reports the final text with the audit in
the numbers a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry

WAL = "https://sqlite.org/wal.html"
ISOLATION = "https://www.sqlite.org/isolation.html"
FILE_FORMAT = "https://sqlite.org/fileformat.html"
BACKUP = "https://sqlite.org/backup.html"
VACUUM = "https://sqlite.org/lang_vacuum.html"
PRAGMA = "https://sqlite.org/pragma.html"
TASKS = "https://docs.python.org/3/library/asyncio-task.html"
THREADING = "https://docs.python.org/3/library/threading.html"
GIL = "https://realpython.com/python-gil/"
SQLITE3 = "https://docs.python.org/3/library/sqlite3.html"
GATHER = "https://superfastpython.com/asyncio-gather/"
GUIDE_P3, GUIDE_P7, GUIDE_P9 = "guide.pdf, p.3", "guide.pdf, p.7", "guide.pdf, p.9"
NOTES = "notes.md"

_TITLES = {
    WAL: "Write-Ahead Logging",
    ISOLATION: "Isolation In SQLite",
    FILE_FORMAT: "Database File Format",
    BACKUP: "SQLite Backup API",
    VACUUM: "VACUUM",
    PRAGMA: "Pragma statements supported by SQLite",
    TASKS: "Coroutines and Tasks",
    THREADING: "threading — Thread-based parallelism",
    GIL: "What Is the Python Global Interpreter Lock (GIL)?",
    SQLITE3: "sqlite3 — DB-API 2.0 interface",
    GATHER: "Asyncio gather()",
}


def registry() -> SourceRegistry:
    """Everything the tools returned in the run the answers were written from."""
    retrieved = SourceRegistry()
    for url, title in _TITLES.items():
        retrieved.add_url(url, title)
    for key in (GUIDE_P3, GUIDE_P7, GUIDE_P9):
        retrieved.add_document(key, "Operations Guide")
    retrieved.add_document(NOTES, "Team notes")
    return retrieved


@dataclass(frozen=True)
class Outcome:
    """The report a person sees and the audit, numbered as that report numbers its sources."""

    report: str
    kept: list[tuple[int, str]]
    removed: list[tuple[int, str | None, str]]


def outcome(answer: str, retrieved: SourceRegistry | None = None) -> Outcome:
    checked = check_report(answer, retrieved if retrieved is not None else registry())
    renumbered = checked.sanitization.renumbered
    kept = [
        (renumbered.get(citation.number, citation.number), citation.source)
        for citation in checked.verification.valid_citations
    ]
    removed = [(r.number, r.source, r.reason) for r in checked.verification.removed_citations]
    removed += [(r.number or 0, r.url, r.reason) for r in checked.sanitization.removed]
    return Outcome(checked.report, sorted(kept), removed)
