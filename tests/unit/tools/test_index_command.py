"""`deepresearch index PATH`: counts on stdout, progress on stderr, refresh is incremental."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.cli import main
from tests.fixtures.web_server import CORPUS_DIR


def test_index_builds_then_refreshes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "docs"
    shutil.copytree(CORPUS_DIR, folder)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", "")
    monkeypatch.chdir(tmp_path)

    assert main(["index", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("indexed 12 files, skipped 1, unchanged 0, removed 0; 36 chunks")
    assert "12/13" in err or "13/13" in err
    assert "warning: skipped broken.pdf" in err
    assert (tmp_path / "data" / "index.sqlite").is_file()

    assert main(["index", str(folder)]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("indexed 0 files, skipped 0, unchanged 13, removed 0; 36 chunks")


def test_index_refuses_a_missing_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert main(["index", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err
