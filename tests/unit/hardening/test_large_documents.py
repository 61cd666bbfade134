"""Big, binary and oversized documents: bounded memory, skipped with a warning naming them."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from engine.tools.local_index import LocalIndex
from tests.unit.hardening.conftest import Sandbox

PARAGRAPH = (
    "Asyncio tasks are cancelled by calling their cancel method, which raises CancelledError "
    "inside the wrapped coroutine at its next await. "
)


def _big_text(path: Path, megabytes: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write("Big notes\n\n")
        block = (PARAGRAPH * 4 + "\n\n") * 200
        for number in range(megabytes * 1_000_000 // len(block)):
            handle.write(f"Section {number}. " + block)
        handle.write("The closing marker word is zanzibarquux.\n")


def test_a_big_text_file_is_indexed_with_bounded_memory(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _big_text(folder / "big.txt", 12)
    index = LocalIndex(tmp_path / "index.sqlite", folder, workers=1)
    tracemalloc.start()
    try:
        stats = index.refresh()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stats.files_indexed == 1 and stats.chunks > 10_000
    # Reading the file whole took several copies of its 12 MB; streaming holds one block.
    assert peak < 8_000_000, f"peak {peak / 1e6:.1f} MB"
    hits = index.search("zanzibarquux", 3)
    assert hits and hits[0].document_key == "big.txt" and hits[0].title == "Big notes"


def test_a_file_over_the_cap_is_skipped_and_named(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    _big_text(sandbox.documents / "huge.md", 3)
    monkeypatch.setenv("INDEX_MAX_FILE_BYTES", "2000000")
    code, out, err = sandbox.run("index", str(sandbox.documents))
    assert code == 0
    assert "skipped huge.md: 2,948,766 bytes is over INDEX_MAX_FILE_BYTES (2,000,000" in err
    assert out.startswith("indexed 3 files, skipped 1")


def test_binary_files_are_skipped_not_indexed_as_text(sandbox: Sandbox):
    (sandbox.documents / "photo.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 50)
    _big_text(sandbox.documents / "core.md", 1)
    with (sandbox.documents / "core.md").open("r+b") as handle:
        handle.write(b"\x7fELF\x02\x01\x01\x00\x00")
    code, out, err = sandbox.run("index", str(sandbox.documents))
    assert code == 0
    assert "warning: skipped photo.txt: binary file, not text" in err
    assert "warning: skipped core.md: binary file, not text" in err
    assert out.startswith("indexed 3 files, skipped 2")


def test_a_changed_size_limit_decides_again_for_files_it_decided_before(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "small.md").write_text("# Small\n\nA short note about queues.\n")
    (folder / "large.md").write_text("# Large\n\n" + PARAGRAPH * 40 + "Marker word qwertyzed.\n")
    size = (folder / "large.md").stat().st_size
    db = tmp_path / "index.sqlite"

    def refreshed(limit: int) -> tuple[int, int, list[str]]:
        index = LocalIndex(db, folder, workers=1, max_file_bytes=limit)
        stats = index.refresh()
        keys = [hit.document_key for hit in index.search("qwertyzed", 3)]
        return stats.files_indexed, stats.files_skipped, keys

    assert refreshed(size - 1) == (1, 1, [])
    assert refreshed(size - 1) == (0, 0, [])  # nothing changed, nothing decided again
    assert refreshed(size) == (1, 0, ["large.md"])  # the raised limit takes the file in
    assert refreshed(size - 1) == (0, 1, [])  # and a lowered one leaves it out again
