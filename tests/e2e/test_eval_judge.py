"""`deepresearch eval` with the LLM judge, against an OpenAI-compatible server on 127.0.0.1.

The research runs on the offline model over the bundled corpus; only the judge talks to the
server, through the engine's OpenAI-compatible client: the server's profile is probed (it
answers tools in text and refuses json_schema, as llama-cpp-python does), the judge asks for
JSON by the method that works, and each question's grades land in its result file and the
summary. The server answers each question the way a small model does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import build_parser
from engine.commands.eval import evaluate
from engine.evals.rubric import DIMENSIONS
from tests.helpers.scripted_openai_server import Answer, ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "tests" / "fixtures" / "eval" / "docs_samples.jsonl"
JUDGE_PROMPT = "You grade research reports"


def grades(**scores: Any) -> dict[str, Any]:
    return {name: {"reason": f"{name} reason", "score": score} for name, score in scores.items()}


# Per question, the judge's replies in order (the second only when asked again).
REPLIES: dict[str, list[str]] = {
    # Valid JSON after a sentence and inside a code fence.
    "q01": [
        "Here is my evaluation:\n```json\n"
        + json.dumps(grades(comprehensiveness=7, insight=4, instruction_following=8, readability=6))
        + "\n```"
    ],
    # A score out of range and a dimension left out; the retry gives them.
    "q02": [
        json.dumps(grades(comprehensiveness=5, insight=11, instruction_following=9)),
        json.dumps(grades(insight=3, readability=8)),
    ],
    # A judge that never grades: recorded on the question, the eval goes on.
    "free": ["I am sorry, but I cannot grade this report.", "I cannot."],
}


def question_of(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return user.split("\n")[1]


def small_model(questions: dict[str, str]):
    """A responder that answers the probes as llama-cpp-python does, the judge by script."""
    served: dict[str, int] = {}

    def answer(body: dict[str, Any]) -> Answer:
        system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
        if body.get("tools"):
            return Answer("I cannot look up the weather.")  # no native tool call
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return Answer("response_format json_schema is not supported", status=400)
        if JUDGE_PROMPT not in system:
            return Answer('{"city": "Paris"}')
        ident = questions[question_of(body)]
        count = served[ident] = served.get(ident, 0) + 1
        replies = REPLIES[ident]
        return Answer(replies[min(count, len(replies)) - 1], prompt_tokens=900)

    return answer


@pytest.fixture
def eval_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Path:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    for name in list(os.environ):
        if name.endswith(("_MODEL", "_BASE_URL", "_API_KEY")) or name.startswith(
            ("MODEL_", "ENABLE_", "EVAL_")
        ):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty))
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.delenv("DOCUMENTS_PATH", raising=False)
    return tmp_path


def dataset(folder: Path) -> tuple[Path, dict[str, str]]:
    lines = [json.loads(line) for line in SHIPPED.read_text().splitlines()[:2]]
    lines.append({"id": "free", "question": "What is asyncio?"})
    path = folder / "set.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, {line["question"]: line["id"] for line in lines}


def run(*argv: str) -> int:
    return evaluate(build_parser().parse_args(["eval", *argv]))


def test_the_judge_grades_each_report_and_the_summary_gains_the_means(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, questions = dataset(eval_env)
    out = eval_env / "out"
    with ScriptedOpenAIServer(small_model(questions)) as llm:
        monkeypatch.setenv("ENABLE_ONLINE_EVALS", "true")
        monkeypatch.setenv("EVAL_MODEL", "small-judge")
        monkeypatch.setenv("EVAL_BASE_URL", llm.base_url)
        assert run(str(path), "--out", str(out)) == 0
        bodies = llm.requests
    captured = capsys.readouterr()

    judged = [b for b in bodies if JUDGE_PROMPT in json.dumps(b["messages"][:1])]
    assert len(judged) == 5  # q01 once, q02 twice, free twice
    # The engine's client asked for JSON by the method the server accepts, with a reply cap.
    assert {b["response_format"]["type"] for b in judged} == {"json_object"}
    assert all(b["model"] == "small-judge" and b["max_tokens"] > 0 for b in judged)

    first = json.loads((out / "q01.json").read_text())["judge"]
    assert first["status"] == "graded" and first["attempts"] == 1
    assert first["scores"] == {
        "comprehensiveness": 7,
        "insight": 4,
        "instruction_following": 8,
        "readability": 6,
    }
    assert first["reasons"]["insight"] == "insight reason" and first["model"] == "small-judge"
    assert first["input_tokens"] == 900

    second = json.loads((out / "q02.json").read_text())["judge"]
    assert second["status"] == "graded" and second["attempts"] == 2
    assert second["scores"] == {
        "comprehensiveness": 5,
        "insight": 3,
        "instruction_following": 9,
        "readability": 8,
    }
    retry = next(b for b in judged if "could not be used" in json.dumps(b["messages"]))
    assert "insight: score 11 is outside 1-10" in retry["messages"][-1]["content"]

    failed = json.loads((out / "free.json").read_text())
    assert failed["status"] == "completed" and failed["judge"]["status"] == "failed"
    assert failed["judge"]["scores"] == dict.fromkeys(DIMENSIONS)
    assert "gave no valid score for comprehensiveness" in failed["judge"]["error"]

    record = json.loads((out / "summary.json").read_text())
    summary = record["summary"]
    assert record["judge"]["model"] == "small-judge"
    assert summary["judge_graded"] == 2 and summary["judge_failed"] == 1
    for name in DIMENSIONS:
        assert summary[f"judge_{name}"] == (first["scores"][name] + second["scores"][name]) / 2
    assert summary["questions"] == 3 and summary["completed"] == 1.0
    assert "judge_readability" in captured.out and "7.0" in captured.out
    assert "judge 7/4/8/6" in captured.err and "judge failed" in captured.err


def test_a_judge_that_cannot_be_reached_is_recorded_per_question(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = dataset(eval_env)
    out = eval_env / "out"
    with ScriptedOpenAIServer(lambda body: Answer()) as llm:
        closed = llm.base_url  # nothing listens here once the server is gone
    monkeypatch.setenv("ENABLE_ONLINE_EVALS", "true")
    monkeypatch.setenv("EVAL_MODEL", "judge")
    monkeypatch.setenv("EVAL_BASE_URL", closed)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    assert run(str(path), "--out", str(out)) == 0
    for ident in ("q01", "q02", "free"):
        result = json.loads((out / f"{ident}.json").read_text())
        assert result["status"] == "completed"  # the research itself is untouched
        assert result["judge"]["status"] == "failed"
        assert result["judge"]["error"].startswith("the judge model judge at 127.0.0.1:")
        assert "cannot be reached" in result["judge"]["error"]
    summary = json.loads((out / "summary.json").read_text())["summary"]
    assert summary["judge_failed"] == 3 and summary["judge_graded"] == 0
    assert summary["judge_insight"] is None
    assert "judge_insight                n/a" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, ("ENABLE_ONLINE_EVALS", "EVAL_MODEL", "offline")),
        ({"ORCHESTRATOR_MODEL": "offline"}, ("ENABLE_ONLINE_EVALS", "EVAL_MODEL")),
        ({"EVAL_MODEL": "gpt-4.1"}, ("EVAL_MODEL=gpt-4.1", "OPENAI_API_KEY")),
    ],
)
def test_a_judge_that_cannot_grade_stops_the_eval_before_it_starts(
    eval_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    named: tuple[str, ...],
) -> None:
    path, _ = dataset(eval_env)
    monkeypatch.setenv("ENABLE_ONLINE_EVALS", "true")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert run(str(path), "--out", str(eval_env / "out")) == 2
    err = capsys.readouterr().err
    assert all(word in err for word in named), err
    assert not (eval_env / "out").exists()


def test_with_the_judge_off_nothing_of_it_is_asked_or_written(
    eval_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, questions = dataset(eval_env)
    out = eval_env / "out"
    with ScriptedOpenAIServer(small_model(questions)) as llm:
        monkeypatch.setenv("EVAL_MODEL", "small-judge")
        monkeypatch.setenv("EVAL_BASE_URL", llm.base_url)
        assert run(str(path), "--out", str(out)) == 0
        assert llm.requests == []
    assert "ENABLE_ONLINE_EVALS is not true" in capsys.readouterr().err
    assert "judge" not in json.loads((out / "q01.json").read_text())
    record = json.loads((out / "summary.json").read_text())
    assert "judge" not in record and not any(k.startswith("judge") for k in record["summary"])


def test_with_the_judge_off_its_modules_are_never_imported(eval_env: Path) -> None:
    path, _ = dataset(eval_env)
    script = (
        "import sys\n"
        "from engine.cli import main\n"
        f"code = main(['eval', {str(path)!r}, '--out', {str(eval_env / 'out')!r}])\n"
        "loaded = sorted(m for m in sys.modules if m in ('engine.evals.judge', "
        "'engine.evals.rubric'))\n"
        "print('LOADED', code, loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert "LOADED 0 []" in done.stdout, done.stdout + done.stderr


async def test_a_report_too_long_for_the_window_is_cut_keeping_question_and_ask(
    tmp_path: Path,
) -> None:
    from engine.config import settings_from_mapping
    from engine.evals.judge import Judge
    from engine.models.compat.context_fit import CUT_MARKER

    question = "What is the default maxsize of functools.lru_cache?"
    report = "\n".join(f"Sentence {i} of a very long report about caches [1]." for i in range(900))
    with ScriptedOpenAIServer(small_model({question: "q01"})) as llm:
        settings = settings_from_mapping(
            {
                "EVAL_MODEL": "small-judge",
                "EVAL_BASE_URL": llm.base_url,
                "MODEL_MAX_INPUT_TOKENS": "4000",
                "DATA_DIR": str(tmp_path),
            }
        )
        judge = Judge(settings)
        record = await judge.grade(question, report)
        await judge.aclose()
        body = next(b for b in llm.requests if JUDGE_PROMPT in json.dumps(b["messages"][:1]))
    assert record["status"] == "graded"
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    assert "Rubric:" in system  # the rubric is never cut
    assert CUT_MARKER.strip() in user and len(user) < len(report)
    assert user.startswith(f"Question:\n{question}")
    assert user.rstrip().endswith("readability.")
    # The reply's cap leaves the prompt its room: at most a quarter of the window.
    assert body["max_tokens"] <= 1000
