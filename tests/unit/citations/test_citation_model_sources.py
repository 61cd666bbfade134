"""Sources sections and document keys as real models write them, through verify + sanitize."""

from __future__ import annotations

import pytest

from tests.unit.citations.model_answers import (
    BACKUP,
    GUIDE_P3,
    GUIDE_P7,
    GUIDE_P9,
    NOTES,
    PRAGMA,
    TASKS,
    VACUUM,
    WAL,
    outcome,
)

BODY = "Readers never block writers [1]. Task groups cancel siblings [2]. Invented [3]."
CANONICAL = (
    "Readers never block writers [1]. Task groups cancel siblings [2]. Invented.\n\n"
    "## Sources\n"
    f"[1] Write-Ahead Logging: {WAL}\n"
    f"[2] Coroutines and Tasks: {TASKS}\n"
)
ENTRIES = (
    f"1. Write-Ahead Logging - {WAL}\n\n"
    f"2. Coroutines and Tasks - {TASKS}\n"
    "3. A paper I recall - https://papers.example.org/wal\n"
)

HEADINGS = [
    "## Sources",
    "## References",
    "### Sources",
    "**References:**",
    "**Sources**",
    "Sources:",
    "References:",
    "Bibliography",
    "Works cited",
    "Citations",
    "## 5. References",
    "**Sources used:**",
]


@pytest.mark.parametrize("heading", HEADINGS)
def test_every_heading_is_consumed_and_replaced_by_the_canonical_section(heading: str) -> None:
    result = outcome(f"{BODY}\n\n{heading}\n{ENTRIES}")
    assert result.report == CANONICAL
    assert result.kept == [(1, WAL), (2, TASKS)]
    assert result.removed == [(3, "https://papers.example.org/wal", "url_not_in_registry")]


ENTRY_STYLES = [
    # Numbered styles, the URL in every place a model puts it.
    f"[1] Write-Ahead Logging — {WAL}\n[2] Coroutines and Tasks: <{TASKS}>\n"
    "[3] Paper (https://papers.example.org/wal)",
    f"1) [Write-Ahead Logging]({WAL})\n\n2) Coroutines and Tasks. {TASKS}.\n"
    "3) Paper. Available at: https://papers.example.org/wal",
    f"[^1]: Write-Ahead Logging, {WAL}\n[^2]: Coroutines and Tasks {TASKS}\n"
    "[^3]: Paper https://papers.example.org/wal",
    f"**[1]** Write-Ahead Logging - {WAL}\n**[2]** Coroutines and Tasks - {TASKS}\n"
    "**[3]** Paper - https://papers.example.org/wal",
    # Bullets: the number is the bullet's position, or written inside it.
    f"- Write-Ahead Logging — {WAL}\n- Coroutines and Tasks — {TASKS}\n\n"
    "- Paper — https://papers.example.org/wal",
    f"* [Write-Ahead Logging]({WAL})\n* [Coroutines and Tasks]({TASKS})\n"
    "* [Paper](https://papers.example.org/wal)",
    f"- [1] Write-Ahead Logging: {WAL}\n- [2] Coroutines and Tasks: {TASKS}\n"
    "- [3] Paper: https://papers.example.org/wal",
    f"- Source 1: Write-Ahead Logging, {WAL}\n- Source 2: Coroutines and Tasks, {TASKS}\n"
    "- Source 3: Paper, https://papers.example.org/wal",
]


@pytest.mark.parametrize("entries", ENTRY_STYLES)
def test_every_entry_style_resolves_to_the_same_canonical_report(entries: str) -> None:
    result = outcome(f"{BODY}\n\n## References\n{entries}\n")
    assert result.report.replace("Write-Ahead Logging, ", "Write-Ahead Logging: ") == CANONICAL
    assert result.kept == [(1, WAL), (2, TASKS)]
    assert result.removed == [(3, "https://papers.example.org/wal", "url_not_in_registry")]


def test_bulleted_sources_numbered_by_position() -> None:
    answer = (
        "Backups should use the online backup API [2] rather than copying files while a writer "
        "is active [1]. The `VACUUM INTO` command is an alternative [3]; so is a book [4].\n\n"
        "### References\n"
        "* **Write-Ahead Logging** – https://sqlite.org/wal.html\n"
        "* [SQLite Online Backup API](https://sqlite.org/backup.html)\n\n"
        "* VACUUM INTO: https://sqlite.org/lang_vacuum.html#vacuuminto\n"
        "* Some book I remember\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Backups should use the online backup API [1] rather than copying files while a writer "
        "is active [2]. The `VACUUM INTO` command is an alternative [3]; so is a book.\n\n"
        "## Sources\n"
        "[1] SQLite Online Backup API: https://sqlite.org/backup.html\n"
        "[2] Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[3] VACUUM INTO: https://sqlite.org/lang_vacuum.html\n"
    )
    assert result.kept == [(1, BACKUP), (2, WAL), (3, VACUUM)]
    assert result.removed == [(4, "Some book I remember", "unverifiable")]


def test_entries_run_together_on_one_line() -> None:
    answer = (
        "WAL improves concurrency [1]. Task groups cancel siblings [2], and a pragma sets the "
        "checkpoint threshold [3]. A claim with an invented source [4].\n\n"
        f"**References:** [1] Write-Ahead Logging — {WAL} [2] Coroutines and Tasks — {TASKS} "
        f"[3] PRAGMA docs — {PRAGMA} [4] Fake — https://fake.example.com/x\n"
    )
    result = outcome(answer)
    assert result.report == (
        "WAL improves concurrency [1]. Task groups cancel siblings [2], and a pragma sets the "
        "checkpoint threshold [3]. A claim with an invented source.\n\n## Sources\n"
        f"[1] Write-Ahead Logging: {WAL}\n[2] Coroutines and Tasks: {TASKS}\n"
        f"[3] PRAGMA docs: {PRAGMA}\n"
    )
    assert result.kept == [(1, WAL), (2, TASKS), (3, PRAGMA)]
    assert result.removed == [(4, "https://fake.example.com/x", "url_not_in_registry")]


def test_bare_urls_after_a_sources_label_on_the_same_line() -> None:
    answer = (
        f"WAL lets readers proceed [1] and tasks can be cancelled [2].\n\nSources: {WAL}, {TASKS}"
    )
    result = outcome(answer)
    assert result.report == (
        "WAL lets readers proceed [1] and tasks can be cancelled [2].\n\n## Sources\n"
        f"[1] Write-Ahead Logging: {WAL}\n[2] Coroutines and Tasks: {TASKS}"
    )
    assert result.removed == []


def test_entries_spread_over_doubled_lines() -> None:
    answer = (
        "Checkpoints run automatically at 1000 pages [1]. The threshold can be changed with a "
        "pragma [2]. A third claim cites a source the model invented [3].\n\n## References\n\n"
        "1. Write-Ahead Logging\n\n   https://sqlite.org/wal.html\n\n"
        "2. PRAGMA wal_autocheckpoint\nhttps://sqlite.org/pragma.html#pragma_wal_autocheckpoint\n\n"
        "3. SQLite internals blog\n   https://invented.example.org/sqlite\n\n"
        "Let me know if you need more detail.\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Checkpoints run automatically at 1000 pages [1]. The threshold can be changed with a "
        "pragma [2]. A third claim cites a source the model invented.\n\n"
        "Let me know if you need more detail.\n\n## Sources\n"
        "[1] Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] PRAGMA wal_autocheckpoint: https://sqlite.org/pragma.html\n"
    )
    assert result.kept == [(1, WAL), (2, PRAGMA)]
    assert result.removed == [(3, "https://invented.example.org/sqlite", "url_not_in_registry")]


def test_a_title_line_above_a_bare_url_line_is_one_entry() -> None:
    answer = (
        "Readers are not blocked [1].\n\nSources\nWrite-Ahead Logging\nhttps://sqlite.org/wal.html"
    )
    assert outcome(answer).report == (
        "Readers are not blocked [1].\n\n## Sources\n[1] Write-Ahead Logging: " + WAL
    )


def test_sections_that_each_number_their_sources_from_one() -> None:
    answer = (
        "## Concurrency\nReaders proceed during writes [1], and checkpoints follow [2].\n\n"
        f"Sources:\n[1] WAL - {WAL}\n[2] Pragmas - {PRAGMA}\n\n"
        "## Asyncio\nTask groups cancel siblings [1]; a claim cites a missing entry [3].\n\n"
        f"References:\n[1] Tasks - {TASKS}\n\n[2] Blog - https://blog.example.net/asyncio\n\n"
        "## Summary\nBoth matter [1].\n"
    )
    result = outcome(answer)
    # Each list restarts at 1, so a marker means the entry of the list that closes its part.
    assert result.report == (
        "## Concurrency\nReaders proceed during writes [1], and checkpoints follow [2].\n\n"
        "## Asyncio\nTask groups cancel siblings [3]; a claim cites a missing entry.\n\n"
        f"## Summary\nBoth matter [3].\n\n## Sources\n[1] WAL: {WAL}\n[2] Pragmas: {PRAGMA}\n"
        f"[3] Tasks: {TASKS}\n"
    )
    assert result.kept == [(1, WAL), (2, PRAGMA), (3, TASKS)]
    # The audit numbers the second list's entries after the first list's.
    assert result.removed == [
        (4, "https://blog.example.net/asyncio", "url_not_in_registry"),
        (5, None, "no_such_source_entry"),
    ]


def test_page_anchored_document_keys_in_every_spelling() -> None:
    answer = (
        "Backups run every night at 02:00 [1]. Restores are rehearsed monthly (guide.pdf, page 7)."
        " Retention is 35 days [guide.pdf#page=9]. Access needs two approvals [Source: guide.pdf "
        "p. 3], and keys rotate yearly (see notes.md). Settings live in (config.yaml). "
        "Audits happen quarterly [2] and alerts page the on-call engineer [3].\n\n"
        "Works cited\n1. Operations Guide, guide.pdf, p.3\n\n2. Guide guide.pdf (page 9)\n"
        "3. Runbook, runbook.pdf p. 2\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Backups run every night at 02:00 [1]. Restores are rehearsed monthly [2]. "
        "Retention is 35 days [3]. Access needs two approvals [1], and keys rotate yearly [4]. "
        "Settings live in (config.yaml). Audits happen quarterly [3] and alerts page the "
        "on-call engineer.\n\n## Sources\n"
        f"[1] Operations Guide: {GUIDE_P3}\n[2] Operations Guide: {GUIDE_P7}\n"
        f"[3] Guide: {GUIDE_P9}\n[4] Team notes: {NOTES}\n"
    )
    assert result.kept == [(1, GUIDE_P3), (2, GUIDE_P7), (3, GUIDE_P9), (4, NOTES)]
    assert result.removed == [(3, "runbook.pdf p. 2", "citation_key_not_in_registry")]


@pytest.mark.parametrize(
    "written",
    ["guide.pdf p. 7", "guide.pdf page 7", "guide.pdf#page=7", "guide.pdf (page 7)",
     "guide.pdf, p.7", "Guide.PDF, pp. 7-8", "docs/guide.pdf p.7"],
)  # fmt: skip
def test_each_page_spelling_resolves_to_the_canonical_key(written: str) -> None:
    result = outcome(f"Restores are rehearsed monthly [1].\n\nReferences:\n[1] {written}\n")
    assert result.report == (
        f"Restores are rehearsed monthly [1].\n\n## Sources\n[1] Operations Guide: {GUIDE_P7}\n"
    )
    assert result.kept == [(1, GUIDE_P7)]
