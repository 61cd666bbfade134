"""Inline citation styles as real models write them, end to end through verify + sanitize.

Each answer is written the way a small model writes: uneven spacing, mixed styles, a sources
list with a blank line in it, a number that no entry defines, a URL that was never retrieved.
"""

from __future__ import annotations

from tests.unit.citations.model_answers import (
    FILE_FORMAT,
    GATHER,
    GIL,
    ISOLATION,
    SQLITE3,
    TASKS,
    THREADING,
    WAL,
    outcome,
)


def test_bracket_lists_and_ranges() -> None:
    answer = (
        "Based on the search results, SQLite's write-ahead log lets readers keep reading while "
        "a writer appends [1].  Checkpoints copy pages back into the database file [1,3], and a "
        "long-running reader can stop a checkpoint from completing [1 , 2].\n"
        "In Python, `asyncio.gather` runs awaitables concurrently [2-3]; cancelling one task "
        "raises `CancelledError` inside it [2–3]. The GIL only matters for CPU-bound threads [5]."
        "\n\n## Sources\n[1] SQLite Write-Ahead Logging - https://sqlite.org/wal.html\n\n"
        "[2] Coroutines and Tasks — https://docs.python.org/3/library/asyncio-task.html\n"
        "[3] asyncio gather explained: https://superfastpython.com/asyncio-gather/\n"
        "[4] Unused duplicate https://sqlite.org/wal.html/\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Based on the search results, SQLite's write-ahead log lets readers keep reading while "
        "a writer appends [1].  Checkpoints copy pages back into the database file [1, 2], and a "
        "long-running reader can stop a checkpoint from completing [1, 3].\n"
        "In Python, `asyncio.gather` runs awaitables concurrently [2, 3]; cancelling one task "
        "raises `CancelledError` inside it [2, 3]. The GIL only matters for CPU-bound threads.\n"
        "\n## Sources\n"
        "[1] SQLite Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] asyncio gather explained: https://superfastpython.com/asyncio-gather/\n"
        "[3] Coroutines and Tasks: https://docs.python.org/3/library/asyncio-task.html\n"
    )
    assert result.kept == [(1, WAL), (2, GATHER), (3, TASKS)]
    assert result.removed == [
        (4, "https://sqlite.org/wal.html/", "duplicate_of_citation_1"),
        (5, None, "no_such_source_entry"),
    ]


def test_footnote_markers_and_definitions() -> None:
    answer = (
        "WAL mode allows one writer and many readers at once[^1]. Readers never block "
        "writers[^1][^2], but a checkpoint cannot finish while an old reader is active[^3].\n\n"
        '[^1]: SQLite documentation, "Write-Ahead Logging", https://sqlite.org/wal.html\n\n'
        "[^2]: https://www.sqlite.org/isolation.html\n"
        "[^3]: Made-up blog post, https://blog.example.net/sqlite-checkpoints\n"
    )
    result = outcome(answer)
    assert result.report == (
        "WAL mode allows one writer and many readers at once [1]. Readers never block "
        "writers [1] [2], but a checkpoint cannot finish while an old reader is active.\n\n"
        "## Sources\n"
        "[1] SQLite documentation, Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] Isolation In SQLite: https://www.sqlite.org/isolation.html\n"
    )
    assert result.kept == [(1, WAL), (2, ISOLATION)]
    assert result.removed == [
        (3, "https://blog.example.net/sqlite-checkpoints", "url_not_in_registry")
    ]


def test_openai_browsing_markers() -> None:
    answer = (
        "Task groups cancel the remaining tasks when one of them fails【1†L12-L18】. "
        "`asyncio.timeout()` replaces `wait_for` in most code【2†source】, and `shield()` "
        "protects an inner task from cancellation 【1†source】. Python 3.12 made task groups "
        "faster【4†source】.\n\n**Sources**\n"
        "1. Coroutines and Tasks (Python docs) <https://docs.python.org/3/library/asyncio-task.html>\n"
        "2. gather() in depth — https://superfastpython.com/asyncio-gather/\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Task groups cancel the remaining tasks when one of them fails [1]. "
        "`asyncio.timeout()` replaces `wait_for` in most code [2], and `shield()` "
        "protects an inner task from cancellation [1]. Python 3.12 made task groups faster.\n\n"
        "## Sources\n"
        "[1] Coroutines and Tasks (Python docs): https://docs.python.org/3/library/asyncio-task.html\n"
        "[2] gather() in depth: https://superfastpython.com/asyncio-gather/\n"
    )
    assert result.kept == [(1, TASKS), (2, GATHER)]
    assert result.removed == [(4, None, "no_such_source_entry")]


def test_source_word_markers() -> None:
    answer = (
        "The GIL is released during blocking I/O (Source 1). Threads therefore help I/O-bound "
        "programs (Sources 1, 2) but not CPU-bound ones [Source 2]. Multiprocessing sidesteps "
        "the lock (source 3), and free-threaded builds are experimental (Sources 2 and 4).\n\n"
        "Sources:\n"
        "- What Is the Python Global Interpreter Lock? https://realpython.com/python-gil/\n"
        "- Python threading docs: https://docs.python.org/3/library/threading.html\n\n"
        "- multiprocessing — https://docs.python.org/3/library/multiprocessing.html\n"
    )
    result = outcome(answer)
    assert result.report == (
        "The GIL is released during blocking I/O [1]. Threads therefore help I/O-bound "
        "programs [1, 2] but not CPU-bound ones [2]. Multiprocessing sidesteps "
        "the lock, and free-threaded builds are experimental [2].\n\n"
        "## Sources\n"
        "[1] What Is the Python Global Interpreter Lock?: https://realpython.com/python-gil/\n"
        "[2] Python threading docs: https://docs.python.org/3/library/threading.html\n"
    )
    assert result.kept == [(1, GIL), (2, THREADING)]
    assert result.removed == [
        (3, "https://docs.python.org/3/library/multiprocessing.html", "url_not_in_registry"),
        (4, None, "no_such_source_entry"),
    ]


def test_sources_named_by_title_or_url() -> None:
    # No sources list at all: every citation names its source, and the registry decides.
    answer = (
        "WAL needs shared memory, so it does not work over a network filesystem "
        "[Source: Write-Ahead Logging]. The wal-index lives in a separate `-shm` file "
        "[Source: https://sqlite.org/wal.html#the_wal_index]. Readers see a snapshot "
        "[Source: SQLite Isolation]; some teams disable WAL on Android [Source: Android "
        "Developers Blog].\nFor asyncio, read [Source: https://docs.python.org/3/library/"
        "asyncio-task.html] and [Source: https://stackoverflow.com/q/12345].\n"
    )
    result = outcome(answer)
    assert result.report == (
        "WAL needs shared memory, so it does not work over a network filesystem [1]. "
        "The wal-index lives in a separate `-shm` file [1]. Readers see a snapshot [2]; "
        "some teams disable WAL on Android.\nFor asyncio, read [3] and.\n\n"
        "## Sources\n"
        "[1] Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] Isolation In SQLite: https://www.sqlite.org/isolation.html\n"
        "[3] Coroutines and Tasks: https://docs.python.org/3/library/asyncio-task.html\n"
    )
    assert result.kept == [(1, WAL), (2, ISOLATION), (3, TASKS)]
    assert result.removed == [
        (0, "Android Developers Blog", "title_not_in_sources"),
        (0, "https://stackoverflow.com/q/12345", "url_not_in_registry"),
    ]


def test_a_named_title_prefers_the_answers_own_list() -> None:
    answer = (
        "Checkpoints are automatic [Source: SQLite docs]. Gather collects results "
        "[Source: gather explained].\n\nReferences:\n"
        "[1] SQLite docs - https://sqlite.org/fileformat.html\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Checkpoints are automatic [1]. Gather collects results.\n\n"
        "## Sources\n[1] SQLite docs: https://sqlite.org/fileformat.html\n"
    )
    assert result.kept == [(1, FILE_FORMAT)]
    assert result.removed == [(0, "gather explained", "title_not_in_sources")]


def test_superscript_markers() -> None:
    answer = (
        "SQLite allows concurrent readers in WAL mode¹. A checkpoint copies committed pages "
        "back to the database², and the WAL file can grow without bound if checkpoints "
        "starve¹˒². A page is 4096 bytes, or 2¹² bytes, and E = mc² is unrelated. One claim "
        "cites a source that is not listed⁷.\n\nReferences\n"
        "1. https://sqlite.org/wal.html\n\n2. https://sqlite.org/fileformat.html\n"
    )
    result = outcome(answer)
    assert result.report == (
        "SQLite allows concurrent readers in WAL mode [1]. A checkpoint copies committed pages "
        "back to the database [2], and the WAL file can grow without bound if checkpoints "
        "starve [1, 2]. A page is 4096 bytes, or 2¹² bytes, and E = mc² is unrelated. One claim "
        "cites a source that is not listed.\n\n## Sources\n"
        "[1] Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] Database File Format: https://sqlite.org/fileformat.html\n"
    )
    assert result.kept == [(1, WAL), (2, FILE_FORMAT)]
    assert result.removed == [(7, None, "no_such_source_entry")]


def test_superscripts_are_left_alone_when_the_answer_does_not_cite_with_them() -> None:
    answer = "Area grows as r² and 10 km² is large [1].\n\n## Sources\n[1] WAL: " + WAL + "\n"
    assert outcome(answer).report == answer


def test_inline_urls_and_markdown_links() -> None:
    answer = (
        "The official [WAL documentation](https://sqlite.org/wal.html) explains checkpoints. "
        "File format details are at https://sqlite.org/fileformat.html. Some tutorials "
        "(https://www.sqlitetutorial.net/wal/) say WAL is always faster, and [this thread]"
        "(https://news.ycombinator.com/item?id=1) disagrees; see also "
        "<https://docs.python.org/3/library/sqlite3.html>. A link [1](https://sqlite.org/wal.html)"
        " is a citation too, and a [bad link](javascript:alert(1)) is unlinked."
    )
    result = outcome(answer)
    assert result.report == (
        "The official WAL documentation [1] explains checkpoints. File format details are at "
        "[2]. Some tutorials say WAL is always faster, and this thread disagrees; see also [3]. "
        "A link [1] is a citation too, and a bad link is unlinked.\n\n## Sources\n"
        "[1] Write-Ahead Logging: https://sqlite.org/wal.html\n"
        "[2] Database File Format: https://sqlite.org/fileformat.html\n"
        "[3] sqlite3 — DB-API 2.0 interface: https://docs.python.org/3/library/sqlite3.html"
    )
    assert result.kept == [(1, WAL), (2, FILE_FORMAT), (3, SQLITE3)]
    assert result.removed == [
        (0, "https://www.sqlitetutorial.net/wal/", "url_not_in_registry"),
        (0, "https://news.ycombinator.com/item?id=1", "url_not_in_registry"),
        (0, "javascript:alert(1)", "unsafe_scheme"),
    ]


def test_an_inline_url_joins_the_number_its_listed_entry_has() -> None:
    answer = (
        "Readers never block writers [2], as https://sqlite.org/wal.html explains.\n\n"
        "## Sources\n[1] Tasks: " + TASKS + "\n[2] WAL: " + WAL + "\n"
    )
    result = outcome(answer)
    assert result.report == (
        "Readers never block writers [1], as [1] explains.\n\n## Sources\n"
        f"[1] WAL: {WAL}\n[2] Tasks: {TASKS}\n"
    )
    assert result.kept == [(1, WAL), (2, TASKS)]
    assert result.removed == []
