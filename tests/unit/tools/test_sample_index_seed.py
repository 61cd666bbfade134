"""A data folder seeded with the prebuilt sample index is up to date for the engine."""

from __future__ import annotations

from pathlib import Path

from engine.tools.local_index import LocalIndex
from tests.fixtures.servers import local_settings
from tests.helpers.sample_index import SAMPLES, seed_sample_index


def test_a_seeded_data_folder_needs_no_indexing(tmp_path: Path) -> None:
    settings = local_settings(tmp_path / "data", SAMPLES)
    stats = LocalIndex(settings.index_db_path, settings.resolved_documents_path).refresh()
    assert stats.files_indexed == 0 and stats.files_unchanged > 40 and stats.chunks > 1000


def test_an_existing_index_is_never_replaced(tmp_path: Path) -> None:
    own = tmp_path / "index.sqlite"
    own.write_bytes(b"")
    seed_sample_index(tmp_path)
    assert own.read_bytes() == b""
