"""`deepresearch eval` on the offline model over the bundled corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import build_parser
from engine.commands.eval import evaluate
from tests.helpers.sample_index import seed_sample_index

SHIPPED = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "docs_samples.jsonl"


@pytest.fixture(autouse=True)
def offline_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty))
    monkeypatch.setenv("DATA_DIR", str(seed_sample_index(tmp_path / "data")))
    for name in ("OPENAI_API_KEY", "EXA_API_KEY", "ORCHESTRATOR_BASE_URL", "DOCUMENTS_PATH"):
        monkeypatch.delenv(name, raising=False)


def small_dataset(tmp_path: Path, count: int = 3) -> Path:
    lines = SHIPPED.read_text().splitlines()[:count]
    lines.append(json.dumps({"id": "free", "question": "What is asyncio?"}))  # not scored
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*argv: str) -> int:
    return evaluate(build_parser().parse_args(["eval", *argv]))


def test_each_question_is_scored_and_the_run_summarized(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset, out, drb = small_dataset(tmp_path), tmp_path / "out", tmp_path / "drb.jsonl"
    assert run(str(dataset), "--out", str(out), "--export-drb", str(drb)) == 0
    captured = capsys.readouterr()
    assert "[4/4]" in captured.err and "fact_recall" in captured.out
    summary = json.loads((out / "summary.json").read_text())["summary"]
    assert summary["questions"] == 4 and summary["completed"] == 1.0
    per_question = json.loads((out / "q01.json").read_text())
    assert per_question["scored"] and per_question["facts_expected"] == 1
    assert per_question["cited_sources"] and per_question["seconds"] > 0
    found = sum(json.loads((out / f"q0{i}.json").read_text())["facts_found"] for i in (1, 2, 3))
    assert summary["fact_recall"] == round(found / 3, 3)
    assert not json.loads((out / "free.json").read_text())["scored"]
    exported = [json.loads(line) for line in drb.read_text().splitlines()]
    assert [set(line) for line in exported] == [{"id", "prompt", "article"}] * 4
    assert exported[0]["article"].strip() and exported[3]["prompt"] == "What is asyncio?"


def test_a_drop_against_the_baseline_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"summary": {"completed": 1.0, "right_source": 1.0}}))
    # The page this question expects is not in the corpus, so it cannot be cited.
    dataset = tmp_path / "set.jsonl"
    question = {"question": "What is the default maxsize of asyncio.Queue?"}
    expected = {"facts": ["0"], "sources": ["no-such-page.html"]}
    dataset.write_text(json.dumps({"id": "x", **question, "expected": expected}) + "\n")
    assert run(str(dataset), "--out", str(tmp_path / "o"), "--baseline", str(baseline)) == 1
    assert "regression: right_source" in capsys.readouterr().err
    baseline.write_text(json.dumps({"summary": {"completed": 1.0}}))
    assert run(str(dataset), "--out", str(tmp_path / "p"), "--baseline", str(baseline)) == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: not JSON"),
        ('{"id": "a"}', "line 1: 'question' must be a non-empty string"),
        ('{"id": "a", "question": "q", "expected": {"facts": ["(unclosed"]}}', "not a regex"),
    ],
)
def test_a_bad_dataset_line_is_named_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    dataset = tmp_path / "bad.jsonl"
    dataset.write_text(line + "\n")
    assert run(str(dataset), "--out", str(tmp_path / "o")) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
