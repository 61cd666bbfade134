"""What a newcomer runs first: `deepresearch run "QUESTION" --yes` with nothing configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.events import OFFLINE_NOTICE, RouteDecided
from tests.e2e.harness import cited_sources, read_jsonl, replay, report_sentences

QUESTION = "How are asyncio tasks cancelled?"


@pytest.fixture
def fresh_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_dir: Path) -> Path:
    """No keys, no models, no .env: only a data directory (with the sample index seeded)."""
    for name in (
        "OPENAI_API_KEY",
        "ORCHESTRATOR_MODEL",
        "ORCHESTRATOR_BASE_URL",
        "EXA_API_KEY",
        "SEARCH_PROVIDER",
        "DOCUMENTS_PATH",
        "RESEARCH_MODE",
        "DEEPRESEARCH_ENV_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("mode", [None, "deep"])
def test_run_yes_completes_a_verified_report(fresh_environment: Path, mode: str | None) -> None:
    out, events_file = fresh_environment / "report.md", fresh_environment / "events.jsonl"
    argv = ["run", QUESTION, "--yes", "--out", str(out), "--events", str(events_file)]
    if mode:
        argv += ["--mode", mode]
    assert main(argv) == 0
    report = out.read_text(encoding="utf-8")
    assert OFFLINE_NOTICE in report
    assert len(cited_sources(report)) >= 3 and report_sentences(report)
    events = read_jsonl(events_file)
    state = replay(events)
    assert state.finished == "completed" and state.report.strip()
    route = next(e for e in events if isinstance(e, RouteDecided))
    assert route.mode == (mode or "quick")
