"""The live tier: whole sessions against a real model server (`pytest -m live_model`).

Skipped by default (`addopts` deselects the marker) and skipped with the reason when nothing
answers at LIVE_MODEL_BASE_URL (default: the registry-bundled model's address,
http://127.0.0.1:8081/v1). Runs `deepresearch run … --yes` in-process as a person would and
checks what must hold whatever the model writes: the run ends with a report, no kept citation
names a source that was not retrieved, and the session is recorded as finished.
A small CPU model is slow: a quick run takes about a minute, the capped deep run up to ten.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from engine.cli import main
from engine.events import ReportReady, RunFinished
from tests.e2e.harness import outside_corpus, read_jsonl

pytestmark = pytest.mark.live_model

BASE_URL = os.environ.get("LIVE_MODEL_BASE_URL", "http://127.0.0.1:8081/v1")
# Exit codes `deepresearch run` may end with on a real model: a verified report, or a report
# whose answer is marked unverified (a small model sometimes cites nothing).
REPORT_WRITTEN = {0, 4}


@pytest.fixture
def live_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_dir: Path) -> Path:
    try:
        models = httpx.get(f"{BASE_URL}/models", timeout=5).json().get("data") or []
    except (httpx.HTTPError, ValueError) as exc:
        pytest.skip(f"no model server answers at {BASE_URL} ({type(exc).__name__})")
    model = str(models[0].get("id")) if models else "local"
    for name in list(os.environ):
        if name.endswith(("_MODEL", "_BASE_URL")) or name.startswith(("MODEL_", "MAX_")):
            monkeypatch.delenv(name, raising=False)
    empty_env = tmp_path / "empty.env"  # a developer's .env must not change the run
    empty_env.write_text("", encoding="utf-8")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty_env))
    monkeypatch.setenv("OPENAI_API_KEY", os.environ.get("LIVE_MODEL_API_KEY", "sk-local"))
    monkeypatch.setenv("ORCHESTRATOR_MODEL", model)
    monkeypatch.setenv("ORCHESTRATOR_BASE_URL", BASE_URL)
    monkeypatch.setenv("MODEL_MAX_INPUT_TOKENS", os.environ.get("LIVE_MODEL_CONTEXT", "16384"))
    monkeypatch.setenv("SEARCH_PROVIDER", "local")
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "900")
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(folder: Path, question: str, mode: str) -> tuple[int, list]:
    out, events_file = folder / "report.md", folder / "events.jsonl"
    argv = ["run", question, "--mode", mode, "--yes", "--out", str(out)]
    code = main([*argv, "--events", str(events_file)])
    return code, read_jsonl(events_file)


def _assert_report_holds(code: int, events: list) -> ReportReady:
    assert code in REPORT_WRITTEN, f"exit {code}"
    report = next(e for e in reversed(events) if isinstance(e, ReportReady))
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert finished and finished[-1].status == "completed"
    # Every kept citation names a document of the searched corpus, whatever the model wrote.
    assert outside_corpus(report) == []
    if code == 0:
        assert report.verification_status == "verified" and report.kept_citations
    else:
        assert report.verification_status == "unverified"
        assert "Unverified answer" in report.report or "Unsourced" in report.report
    return report


@pytest.mark.timeout(600)
def test_quick_run_on_a_real_model(live_environment: Path) -> None:
    code, events = _run(
        live_environment, "What is the default maxsize of functools.lru_cache?", "quick"
    )
    _assert_report_holds(code, events)


@pytest.mark.timeout(1500)
def test_capped_deep_run_on_a_real_model(
    live_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "MAX_RESEARCHER_ITERATIONS": "2",
        "MAX_CONCURRENT_RESEARCH_UNITS": "2",
        "MAX_REACT_TOOL_CALLS": "6",
        "MIN_EVIDENCE_RECORDS": "2",
        "MIN_SOURCE_DOMAINS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    code, events = _run(
        live_environment, "Compare asyncio tasks and threads for I/O-bound work", "deep"
    )
    _assert_report_holds(code, events)
