"""The app checks what the CLI checks before a session: search that cannot work stops it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import SettingsError, settings_from_mapping
from tui.link.engine_backend import EngineBackend
from tui.presentation.failures import describe_failure


async def test_exa_without_a_key_stops_the_app_session_before_it_starts(tmp_path: Path) -> None:
    settings = settings_from_mapping({"SEARCH_PROVIDER": "exa", "DATA_DIR": str(tmp_path)})
    backend = EngineBackend(settings, cwd=tmp_path)
    with pytest.raises(SettingsError) as caught:
        async with backend.open_session(None):
            pytest.fail("a session opened with a search provider that cannot work")
    assert "EXA_API_KEY" in describe_failure(caught.value)
    assert not (tmp_path / "sessions.sqlite").exists()


def test_the_app_indexes_with_the_configured_file_size_cap(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.md").write_text("# Small\n\nA small page about asyncio.\n", encoding="utf-8")
    (docs / "big.txt").write_text("word " * 2_000, encoding="utf-8")  # 10 kB
    settings = settings_from_mapping(
        {
            "DOCUMENTS_PATH": str(docs),
            "DATA_DIR": str(tmp_path / "data"),
            "INDEX_MAX_FILE_BYTES": "5000",
        }
    )
    EngineBackend(settings, cwd=tmp_path).prepare_documents(lambda done, total: None)
    from engine.tools.local_index import LocalIndex

    index = LocalIndex(settings.index_db_path, docs, max_file_bytes=5000)
    keys = {hit.document_key for hit in index.search("asyncio word", limit=10)}
    assert keys == {"small.md"}  # the 10 kB file is over the 5 kB cap


def test_the_app_says_when_the_documents_folder_has_nothing_to_search(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    settings = settings_from_mapping(
        {"DOCUMENTS_PATH": str(empty), "DATA_DIR": str(tmp_path / "data")}
    )
    warning = EngineBackend(settings, cwd=tmp_path).prepare_documents(lambda done, total: None)
    assert warning is not None and "no documents to search" in warning and str(empty) in warning


def test_exports_go_where_export_dir_says_else_under_the_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plain = settings_from_mapping({"DATA_DIR": str(data)})
    chosen = settings_from_mapping({"DATA_DIR": str(data), "EXPORT_DIR": str(tmp_path / "out")})
    blank = settings_from_mapping({"DATA_DIR": str(data), "EXPORT_DIR": "  "})
    assert EngineBackend(plain, cwd=tmp_path).export_dir() == data / "exports"
    assert EngineBackend(chosen, cwd=tmp_path).export_dir() == tmp_path / "out"
    assert EngineBackend(blank, cwd=tmp_path).export_dir() == data / "exports"
