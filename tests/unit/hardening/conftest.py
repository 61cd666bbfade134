"""A command line in a sandbox: its own data directory, documents folder and no `.env`.

Runs use the offline extractive model over a three-document folder, so a whole session takes
a few seconds and touches no network.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import main

DOCUMENTS = {
    "tasks.md": "# Asyncio tasks\n\nA task is cancelled by calling its cancel method. "
    "Cancelling a task raises CancelledError inside the coroutine it wraps.\n",
    "threads.md": "# Threads\n\nThreads share memory and are scheduled by the operating "
    "system. A thread cannot be cancelled from outside in Python.\n",
    "loops.md": "# Event loops\n\nThe event loop runs tasks and callbacks. A loop is stopped "
    "with its stop method once the running tasks are cancelled.\n",
}


@dataclass
class Sandbox:
    root: Path
    data_dir: Path
    documents: Path
    capsys: pytest.CaptureFixture[str]

    def run(self, *argv: str) -> tuple[int, str, str]:
        """`deepresearch ARGV…`: exit code, stdout, stderr."""
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.fixture
def sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Sandbox:
    documents = tmp_path / "documents"
    documents.mkdir()
    for name, text in DOCUMENTS.items():
        (documents / name).write_text(text, encoding="utf-8")
    data_dir = tmp_path / "data"
    for name in (
        "OPENAI_API_KEY",
        "EXA_API_KEY",
        "EXA_BASE_URL",
        "ORCHESTRATOR_MODEL",
        "ORCHESTRATOR_BASE_URL",
        "SEARCH_PROVIDER",
        "DEEPRESEARCH_ENV_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.setenv("DOCUMENTS_PATH", str(documents))
    monkeypatch.setenv("MIN_EVIDENCE_RECORDS", "1")
    monkeypatch.setenv("MIN_SOURCE_DOMAINS", "1")
    monkeypatch.chdir(tmp_path)
    return Sandbox(tmp_path, data_dir, documents, capsys)
