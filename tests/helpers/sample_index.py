"""The sample corpus's index, built once per test process and copied into each data folder.

Indexing docs/samples (42 files, 6 MB of HTML through trafilatura) takes 3–10 s of CPU in
worker processes. Thirty-odd tests run whole sessions over that corpus, each in a fresh data
folder, and none of them is about indexing: they get a copy of an index built once, which the
engine then finds up to date (same files, same sizes and modification times). Tests of
indexing itself index their own folders and never call this.
"""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

from engine.config import SAMPLE_CORPUS
from engine.tools.local_index.index import LocalIndex

SAMPLES = SAMPLE_CORPUS.resolve()
INDEX_NAME = "index.sqlite"  # Settings.index_db_path's file name

_lock = threading.Lock()
_built: Path | None = None
_folder: Path | None = None


def build_in(folder: Path) -> None:
    """Build the index in `folder` when it is first needed (pytest's own temporary folder,
    which pytest cleans up; xdist workers never run `atexit`)."""
    global _folder
    _folder = folder


def is_sample_corpus(documents: Path | str) -> bool:
    return Path(documents).expanduser().resolve() == SAMPLES


def seed_sample_index(data_dir: Path | str) -> Path:
    """Give `data_dir` an up-to-date index of docs/samples, unless it already has an index."""
    data_dir = Path(data_dir)
    target = data_dir / INDEX_NAME
    if not target.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        source, copy = sqlite3.connect(_built_once()), sqlite3.connect(target)
        try:
            source.backup(copy)  # a consistent copy, whatever the journal holds
        finally:
            copy.close()
            source.close()
    return data_dir


def _built_once() -> Path:
    global _built
    with _lock:
        if _built is None:
            folder = _folder
            if folder is None:  # outside pytest: a subprocess a test started
                folder = Path(tempfile.mkdtemp(prefix="sample-index-"))
                atexit.register(shutil.rmtree, folder, ignore_errors=True)
            path = folder / INDEX_NAME
            LocalIndex(path, SAMPLES).refresh()
            _built = path
        return _built
