"""Nothing outside the documents folder is ever read, however a link inside it points there."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from engine.config import settings_from_mapping
from engine.tools.local_index import LocalIndex
from tests.unit.hardening.conftest import Sandbox

SECRET = "canaryxq7f3a"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(f"# Secret\n\nThe key is {SECRET} and more words.\n")
    return folder


def _link_out(documents: Path, outside: Path) -> None:
    os.symlink(outside / "secret.md", documents / "notes.md")
    os.symlink(outside, documents / "more")
    os.symlink("/proc/self/environ", documents / "environ.txt")
    os.symlink(outside / "secret.md", documents / ".indexignore")
    # A link that stays inside is fine: its target is indexed under its own name.
    os.symlink(documents / "tasks.md", documents / "same-tasks.md")


def test_index_skips_links_out_of_the_folder_and_names_them(sandbox: Sandbox, outside: Path):
    _link_out(sandbox.documents, outside)
    code, out, err = sandbox.run("index", str(sandbox.documents))
    assert code == 0
    for name in ("notes.md", "environ.txt", "more"):
        assert f"warning: skipped {name}: it links outside the documents folder" in err
    assert out.startswith("indexed 4 files")

    index = LocalIndex(sandbox.data_dir / "index.sqlite", sandbox.documents)
    assert index.search(SECRET, 5) == []
    with sqlite3.connect(sandbox.data_dir / "index.sqlite") as db:
        bodies = " ".join(row[0] for row in db.execute("SELECT body FROM chunks"))
        rows = db.execute("SELECT rel_path FROM files WHERE status = 'indexed'")
        indexed = {row[0] for row in rows}
    assert indexed == {"tasks.md", "threads.md", "loops.md", "same-tasks.md"}
    assert SECRET not in bodies and "PATH=" not in bodies
    assert [hit.document_key for hit in index.search("cancel method", 5)][:1] in (
        ["tasks.md"],
        ["same-tasks.md"],
    )


def test_doctor_warns_about_links_out_of_the_folder(sandbox: Sandbox, outside: Path):
    _link_out(sandbox.documents, outside)
    code, out, _err = sandbox.run("doctor", "--no-probe")
    assert code == 0
    assert "local: 4 documents in" in out
    assert "notes.md: it links outside the documents folder" in out
    assert "environ.txt: it links outside the documents folder" in out


def test_special_files_are_never_opened(sandbox: Sandbox):
    os.mkfifo(sandbox.documents / "pipe.txt")  # reading it would block the indexer forever
    settings = settings_from_mapping(
        {"DATA_DIR": str(sandbox.data_dir), "DOCUMENTS_PATH": str(sandbox.documents)}
    )
    stats = LocalIndex(settings.index_db_path, sandbox.documents).refresh()
    assert stats.files_indexed == 3
    assert any("pipe.txt: not a regular file" in warning for warning in stats.warnings)


def test_a_hard_link_into_the_folder_is_skipped_with_a_reason(sandbox: Sandbox, outside: Path):
    os.link(outside / "secret.md", sandbox.documents / "linked.md")
    os.link(outside / "secret.md", sandbox.documents / ".indexignore")
    code, _out, err = sandbox.run("index", str(sandbox.documents))
    assert code == 0
    assert "warning: skipped linked.md: it has other hard links" in err
    index = LocalIndex(sandbox.data_dir / "index.sqlite", sandbox.documents)
    assert index.search(SECRET, 5) == []
    with sqlite3.connect(sandbox.data_dir / "index.sqlite") as db:
        rows = db.execute("SELECT rel_path FROM files WHERE status = 'indexed'")
        assert {row[0] for row in rows} == {"tasks.md", "threads.md", "loops.md"}
