"""LocalIndex: formats, document keys, incremental refresh, bad files, query sanitising."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engine.tools.local_index import LocalIndex
from engine.tools.local_index.words import fts_query
from engine.tools.preprocess import preprocess
from tests.fixtures.pdf_builder import build_pdf
from tests.fixtures.web_server import CORPUS_DIR


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS_DIR, docs)
    (docs / "notes.md").write_text(
        "# Field notes\n\nIntro line about nothing.\n\n## Vacuum\n\n"
        "VACUUM rebuilds the database file and reclaims free pages.\n",
        encoding="utf-8",
    )
    (docs / "plain.txt").write_text(
        "Plain notes\n\nThe pangolin pragma waits for locks.\n", encoding="utf-8"
    )
    (docs / "sub").mkdir()
    (docs / "sub" / "guide.pdf").write_bytes(
        build_pdf(
            ["Introduction to the zebra protocol.", "Nothing here.", "Quokka handshake details."],
            title="Protocol guide",
        )
    )
    (docs / ".hidden").mkdir()
    (docs / ".hidden" / "secret.md").write_text("# hidden quokka\n", encoding="utf-8")
    (docs / "image.png").write_bytes(b"\x89PNG not indexed")
    return docs


def _index(tmp_path: Path, folder: Path) -> LocalIndex:
    return LocalIndex(tmp_path / "data" / "index.sqlite", folder, workers=1)


def test_indexes_every_supported_format_with_document_keys(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    stats = index.refresh()
    assert stats.files_indexed == 15  # 12 html + md + txt + pdf; hidden and png ignored
    assert stats.files_skipped == 0 and stats.warnings == ()
    assert stats.chunks >= 15
    assert index.search("quokka handshake", 5)[0].document_key == "sub/guide.pdf, p.3"
    assert index.search("zebra protocol", 5)[0].document_key == "sub/guide.pdf, p.1"
    assert index.search("VACUUM reclaims pages", 5)[0].document_key == "notes.md"
    assert index.search("pangolin pragma", 5)[0].document_key == "plain.txt"
    assert not any(h.document_key.startswith(".hidden") for h in index.search("hidden", 10))


def test_html_chunks_follow_headings(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    hit = index.search("How does WAL mode work with readers", 3)[0]
    assert hit.document_key == "sqlite-wal.html"
    assert hit.heading in {"How WAL mode works", "Concurrency benefit"}
    assert hit.title == f"SQLite write-ahead logging — {hit.heading}"
    assert "Readers" in hit.passage or "readers" in hit.passage


def test_search_ranks_the_relevant_topic_first(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    hits = index.search("How are asyncio tasks cancelled?", 5)
    assert hits[0].document_key.startswith("asyncio-")
    assert all(h.score >= hits[-1].score for h in hits)
    keys = [h.document_key for h in hits]
    assert all(keys.count(k) <= 2 for k in keys)


def test_refresh_reindexes_only_changed_files(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    again = index.refresh()
    assert (again.files_indexed, again.files_unchanged) == (0, 15)

    notes = folder / "notes.md"
    notes.write_text("# Field notes\n\nNow about the ocelot migration.\n", encoding="utf-8")
    stat = notes.stat()
    os.utime(notes, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    (folder / "plain.txt").unlink()
    changed = index.refresh()
    assert (changed.files_indexed, changed.files_unchanged, changed.files_removed) == (1, 13, 1)
    assert index.search("ocelot", 3)[0].document_key == "notes.md"
    assert index.search("VACUUM", 3) == []
    assert index.search("pangolin", 3) == []


def test_corrupt_and_unreadable_files_are_skipped_with_a_warning(
    tmp_path: Path, folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (folder / "empty.html").write_text("<html><body></body></html>", encoding="utf-8")
    index = _index(tmp_path, folder)
    progress: list[tuple[int, int, str]] = []
    stats = index.refresh(progress=lambda d, t, n: progress.append((d, t, n)))
    assert stats.files_skipped == 2
    assert stats.files_indexed == 15
    assert any("broken.pdf" in w for w in stats.warnings)
    assert any("empty.html" in w for w in stats.warnings)
    assert any("broken.pdf" in r.getMessage() for r in caplog.records)
    assert progress[-1][:2] == (17, 17) and len(progress) == 17
    # A skipped file is not retried until it changes.
    assert index.refresh().files_skipped == 0


def test_two_folders_share_one_database_without_mixing(tmp_path: Path, folder: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "only.md").write_text("# Only\n\nThe capybara appears only here.\n", encoding="utf-8")
    first, second = _index(tmp_path, folder), _index(tmp_path, other)
    first.refresh()
    second.refresh()
    assert second.search("capybara", 3)[0].document_key == "only.md"
    assert first.search("capybara", 3) == []
    assert second.search("asyncio", 3) == []


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        "asyncio AND OR NOT",
        "NEAR(asyncio task, 5)",
        "title:asyncio",
        "cancel* ^task -gil +wal",
        "a" * 10_000,
        "cancel " * 2_000,
        "日本語のテキスト 検索",
        "émigré café naïve",
        "\x00\x1f control",
        "()[]{}:;'\"",
        "",
        "   ",
    ],
)
def test_hostile_queries_never_raise(tmp_path: Path, folder: Path, query: str) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    hits = index.search(query, 5)
    assert len(hits) <= 5


def test_fts_query_quotes_terms_and_drops_stopwords() -> None:
    assert fts_query('How are "asyncio" tasks cancelled?') == '"asyncio" OR "tasks" OR "cancelled"'
    assert fts_query("the and of") == '"the" OR "and" OR "of"'
    assert fts_query("!!! ???") is None
    assert fts_query("x " * 500).count("OR") == 0
    assert fts_query(" ".join(f"w{i}" for i in range(100))).count('"') == 48


def test_document_text_by_key(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    document = index.document("sqlite-checkpoints.html")
    assert document is not None
    assert document.title == "Checkpoints in SQLite WAL mode"
    assert "## Checkpoint starvation" in document.text
    assert "wal_checkpoint(TRUNCATE)" in document.text
    page = index.document("sub/guide.pdf, p.3")
    assert page is not None and "Quokka handshake" in page.text
    assert index.document("missing.html") is None


def test_missing_folder_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        _index(tmp_path, tmp_path / "nope").refresh()


def test_ensure_fresh_refreshes_once(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    assert index.ensure_fresh() is not None
    assert index.ensure_fresh() is None


def test_fts_query_and_form() -> None:
    assert fts_query("asyncio task cancel", "AND") == '"asyncio" AND "task" AND "cancel"'


def test_chunks_with_every_term_rank_before_partial_matches(tmp_path: Path, folder: Path) -> None:
    index = _index(tmp_path, folder)
    index.refresh()
    hits = index.search("readers writer commits", 10)
    assert hits[0].document_key == "sqlite-wal.html"  # the only chunk with all three words
    assert len(hits) > 1  # partial matches still follow


def test_sorting_by_score_keeps_every_term_matches_first(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    filler = " ".join(f"word{n}" for n in range(120))
    (docs / "all.md").write_text(
        f"# Tuning\n\nThe checkpoint timeout of the walwriter is five minutes. {filler}\n",
        encoding="utf-8",
    )
    # Two of the three words, dense in a short chunk: a higher BM25 than the chunk above.
    (docs / "dense.md").write_text(
        "# Notes\n\nCheckpoint walwriter checkpoint walwriter checkpoint walwriter.\n",
        encoding="utf-8",
    )
    index = _index(tmp_path, docs)
    index.refresh()
    hits = index.search("walwriter checkpoint timeout", 5)
    assert [h.document_key for h in hits] == ["all.md", "dense.md"]
    # The search tool's preprocessing sorts by score: it keeps the index's order.
    results = preprocess(hits, "walwriter checkpoint timeout", 5).results
    assert [r.document for r in results] == ["all.md", "dense.md"]


def test_indexignore_excludes_files(tmp_path: Path, folder: Path) -> None:
    (folder / ".indexignore").write_text("# not documents\nnotes.md\nsub/*.pdf\n", encoding="utf-8")
    index = _index(tmp_path, folder)
    assert index.refresh().files_indexed == 13
    assert index.search("VACUUM", 3) == []
    assert index.search("quokka", 3) == []


def test_sample_corpus_ignores_its_readme_and_licence() -> None:
    from engine.config import SAMPLE_CORPUS
    from engine.tools.document_scan import scan_folder

    names = set(scan_folder(SAMPLE_CORPUS).files)
    assert "asyncio-task.html" in names
    assert "README.md" not in names and "LICENSE-PSF.txt" not in names
    assert len(names) >= 40


def test_index_falls_back_to_this_process_when_workers_cannot_start(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.tools.local_index.parse as local_index_parse

    def no_workers(*args: object, **kwargs: object) -> None:
        # What multiprocessing raises inside the app, where stderr has no file descriptor.
        raise ValueError("bad value(s) in fds_to_keep")

    monkeypatch.setattr(local_index_parse, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(local_index_parse, "ProcessPoolExecutor", no_workers)
    index = LocalIndex(tmp_path / "data" / "index.sqlite", folder, workers=2)
    stats = index.refresh()
    assert stats.files_indexed == 15 and stats.files_skipped == 0
    assert index.search("VACUUM reclaims pages", 5)[0].document_key == "notes.md"


def test_a_refresh_stopped_early_drops_the_files_no_worker_has_started(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.tools.local_index.parse as local_index_parse

    shutdowns: list[dict[str, object]] = []

    class RecordingPool:
        """Stands for ProcessPoolExecutor: parses lazily here, records how it is shut down."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def map(self, fn: object, jobs: list[tuple[str, str]]) -> object:
            return (local_index_parse._parse_job(job) for job in jobs)

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            shutdowns.append({"wait": wait, "cancel_futures": cancel_futures})

        def __enter__(self) -> RecordingPool:
            return self

        def __exit__(self, *exc: object) -> None:
            self.shutdown(wait=True)

    class Stop(Exception):
        pass

    def stop_after_the_first(done: int, total: int, name: str) -> None:
        if done >= 1:
            raise Stop  # what the app does when its screen closes mid-refresh

    monkeypatch.setattr(local_index_parse, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(local_index_parse, "ProcessPoolExecutor", RecordingPool)
    index = LocalIndex(tmp_path / "data" / "index.sqlite", folder, workers=2)
    with pytest.raises(Stop):
        index.refresh(progress=stop_after_the_first)
    # Waiting for every queued file made closing the app during a first index take as long
    # as the whole index.
    assert shutdowns == [{"wait": True, "cancel_futures": True}]


def test_a_passage_missing_one_question_word_beats_passages_with_only_rare_words(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "events.md").write_text(
        "# Events\n\n## defaultMaxListeners\n\nBy default, a maximum of 10 listeners can be "
        "registered for any single event on an EventEmitter.\n",
        encoding="utf-8",
    )
    # The question's rarest word ("many") is not in the answer; dropping the commonest words
    # first would keep it and rank this page, which has nothing else of the question, first.
    (docs / "noise.md").write_text("# Noise\n\nMany listeners are noisy.\n", encoding="utf-8")
    for n in range(6):
        (docs / f"common{n}.md").write_text(
            f"# Common {n}\n\nA single event is registered by default on an EventEmitter ({n}).\n",
            encoding="utf-8",
        )
    index = _index(tmp_path, docs)
    index.refresh()
    hits = index.search(
        "How many listeners can be registered for a single event on an EventEmitter by default?",
        3,
    )
    assert hits[0].document_key == "events.md"


def test_a_rare_incidental_word_of_a_long_question_does_not_decide_the_ranking(
    tmp_path: Path,
) -> None:
    """Seen on the PostgreSQL manual: "decide" is in three chunks, one of them the lock
    timeout's ("the waiter decides to check for deadlock"). Requiring ever fewer words,
    commonest dropped first, kept it in every query and ranked that page above the pages with
    the question's other words."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "autovacuum.md").write_text(
        "# Automatic Vacuuming\n\nThe autovacuum daemon issues VACUUM and ANALYZE commands "
        "for a table once its thresholds are passed.\n",
        encoding="utf-8",
    )
    (docs / "locks.md").write_text(
        "# Lock Management\n\nThe waiter decides to check for deadlock once deadlock_timeout "
        "has passed; these settings control it.\n",
        encoding="utf-8",
    )
    for n in range(8):
        (docs / f"config{n}.md").write_text(
            f"# Server configuration {n}\n\nPostgreSQL settings control each table ({n}).\n",
            encoding="utf-8",
        )
    # The words that matter are commoner in a manual about them than the incidental one.
    for n in range(3):
        (docs / f"maintenance{n}.md").write_text(
            f"# Maintenance {n}\n\nRun VACUUM, ANALYZE or autovacuum weekly ({n}).\n",
            encoding="utf-8",
        )
    index = _index(tmp_path, docs)
    index.refresh()
    question = (
        "How does PostgreSQL autovacuum decide when to vacuum and analyze a table, and which "
        "settings control it?"
    )
    keys = [hit.document_key for hit in index.search(question, 5)]
    assert keys[0] == "autovacuum.md"
    assert keys.index("locks.md") > keys.index("autovacuum.md")


def test_a_heading_that_is_a_sentence_is_text_under_the_heading_above_it() -> None:
    from engine.tools.documents import split_by_headings

    # As the extractor gives a manual's option list: a note's title run into its text; and an
    # unfenced example whose comment starts with "#".
    text = (
        "## Options\n--force-index-cleanup\nAlways remove index entries.\n"
        "### Note This option is only available for servers running PostgreSQL 12 and later.\n"
        "# Send thirty task requests to the worker.\nfor item in range(30): put(item)\n"
        "### Tip If you specify columns, escape the parentheses. (See examples below.)\n"
        "## Exit Status\nvacuumdb exits with status 0.\n"
    )

    chunks = split_by_headings(text, "app-vacuumdb.html", "vacuumdb")

    assert [chunk.heading for chunk in chunks] == ["Options", "Exit Status"]
    assert "entries. Note This option is only available for servers" in chunks[0].text
    assert "later. Send thirty task requests to the worker." in chunks[0].text
