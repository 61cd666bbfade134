"""The eval judge against a real model server (`pytest -m live_model`).

Skipped by default (`addopts` deselects the marker) and skipped with the reason when nothing
answers at LIVE_MODEL_BASE_URL (default http://127.0.0.1:8081/v1, the registry-bundled model
of `../shared/tools/local-llm`). Runs `deepresearch eval` in-process on one question as a
person would switch the judge on: the research on the offline model, only the judge on the
real one. Checks what must hold whatever the model writes: the report is graded on all four
dimensions, each score on the 1-10 scale with a reason, and the summary's means are the
grades. One judge call after the server's probe: 2-13 minutes on the shared 1.5B CPU model.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from engine.cli import main
from engine.evals.rubric import DIMENSIONS, SCORE_MAX, SCORE_MIN

pytestmark = pytest.mark.live_model

BASE_URL = os.environ.get("LIVE_MODEL_BASE_URL", "http://127.0.0.1:8081/v1")
PAIR = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "judge_pair.jsonl"


@pytest.fixture
def live_judge(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_dir: Path) -> str:
    try:
        models = httpx.get(f"{BASE_URL}/models", timeout=5).json().get("data") or []
    except (httpx.HTTPError, ValueError) as exc:
        pytest.skip(f"no model server answers at {BASE_URL} ({type(exc).__name__})")
    model = str(models[0].get("id")) if models else "local"
    for name in list(os.environ):
        if name.endswith(("_MODEL", "_BASE_URL", "_API_KEY")) or name.startswith(
            ("MODEL_", "MAX_", "EVAL_", "ENABLE_")
        ):
            monkeypatch.delenv(name, raising=False)
    empty_env = tmp_path / "empty.env"  # a developer's .env must not change the run
    empty_env.write_text("", encoding="utf-8")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty_env))
    monkeypatch.setenv("ORCHESTRATOR_MODEL", "offline")  # the research stays offline
    monkeypatch.setenv("ENABLE_ONLINE_EVALS", "true")
    monkeypatch.setenv("EVAL_MODEL", model)
    monkeypatch.setenv("EVAL_BASE_URL", BASE_URL)
    monkeypatch.setenv("OPENAI_API_KEY", os.environ.get("LIVE_MODEL_API_KEY", "sk-local"))
    monkeypatch.setenv("MODEL_MAX_INPUT_TOKENS", os.environ.get("LIVE_MODEL_CONTEXT", "16384"))
    monkeypatch.setenv("SEARCH_PROVIDER", "local")
    monkeypatch.setenv("LLM_TIMEOUT_SECONDS", "900")
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    return model


@pytest.mark.timeout(1800)
def test_the_judge_grades_a_report_on_a_real_model(live_judge: str, tmp_path: Path) -> None:
    dataset = tmp_path / "one.jsonl"
    dataset.write_text(PAIR.read_text(encoding="utf-8").splitlines()[0] + "\n")
    out = tmp_path / "out"
    assert main(["eval", str(dataset), "--mode", "quick", "--out", str(out)]) == 0
    ident = json.loads(dataset.read_text())["id"]
    result = json.loads((out / f"{ident}.json").read_text())
    assert result["status"] == "completed"
    judge = result["judge"]
    assert judge["model"] == live_judge
    assert judge["status"] == "graded", judge["error"]
    for name in DIMENSIONS:
        assert SCORE_MIN <= judge["scores"][name] <= SCORE_MAX
        assert judge["reasons"][name].strip(), f"no reason for {name}"
    summary = json.loads((out / "summary.json").read_text())["summary"]
    assert summary["judge_graded"] == 1
    assert all(summary[f"judge_{name}"] == judge["scores"][name] for name in DIMENSIONS)
