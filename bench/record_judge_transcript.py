"""Re-record the eval judge's exchanges with a real model, for the test that replays them.

    # first start a model server (docs/local-models.md), e.g. ../shared/tools/local-llm start
    uv run python bench/record_judge_transcript.py [--upstream http://127.0.0.1:8081/v1] \\
        [--dataset tests/fixtures/eval/judge_pair.jsonl] [--out FILE] [--timeout SECONDS]

Runs `deepresearch eval DATASET --mode quick` as a subprocess, the way a person switches the
judge on, with the research on the offline model and only the judge on the real one, through
a recording proxy (`tests/fixtures/recording_proxy.py`):

    ORCHESTRATOR_MODEL=offline  ENABLE_ONLINE_EVALS=true  EVAL_MODEL=local
    EVAL_BASE_URL=<proxy>/v1  MODEL_MAX_INPUT_TOKENS=16384  SEARCH_PROVIDER=local
    LLM_TIMEOUT_SECONDS=900  LLM_MAX_RETRIES=1  DATA_DIR=<fresh temporary folder>

Every other engine setting is removed from the child's environment and
`DEEPRESEARCH_ENV_FILE` names an empty file, so a developer's `.env` cannot leak in. The
cassette (default `tests/fixtures/transcripts/judge/eval_judge_pair.jsonl`) holds the probe of
the server and every judge call; its header holds the settings, each question and report the
judge was shown, and what the judge gave (status, scores, reasons, seconds), so the replay
(`tests/e2e/test_judge_replay.py`) shows the same reports to the judge code and must get the
same grades back from the recorded replies. The proxy sends one request upstream at a time.

Exit code: 0 when the eval exited 0 and every question was graded, 1 otherwise, 2 when the
upstream does not answer. Slow on a CPU model: the probe and two judge calls take minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.record_transcripts import (  # noqa: E402
    DEFAULT_UPSTREAM,
    check_upstream,
    deepresearch_command,
)
from tests.fixtures.recording_proxy import RecordingProxy  # noqa: E402
from tests.fixtures.transcripts import (  # noqa: E402
    TRANSCRIPTS_DIR,
    header_line,
    load_cassette,
    save_cassette,
)

JUDGE_CASSETTE = TRANSCRIPTS_DIR / "judge" / "eval_judge_pair.jsonl"
DATASET = ROOT / "tests" / "fixtures" / "eval" / "judge_pair.jsonl"
# The settings of the recording; the replay uses them again (EVAL_BASE_URL aside).
# The research stays on the offline model: with OPENAI_API_KEY set and no ORCHESTRATOR_MODEL,
# the roles would go to OpenAI; a local server needs no key.
JUDGE_ENV: dict[str, str] = {
    "ORCHESTRATOR_MODEL": "offline",
    "ENABLE_ONLINE_EVALS": "true",
    "EVAL_MODEL": "local",
    "MODEL_MAX_INPUT_TOKENS": "16384",
    "SEARCH_PROVIDER": "local",
    "LLM_TIMEOUT_SECONDS": "900",
    "LLM_MAX_RETRIES": "1",
}


def child_environment(proxy_url: str, data_dir: Path, env_file: Path) -> dict[str, str]:
    from engine.config import Settings

    env = dict(os.environ)
    for field in Settings.model_fields:  # no stray engine settings from the shell
        env.pop(field.upper(), None)
    env.update(JUDGE_ENV)
    env.update(
        {
            "EVAL_BASE_URL": proxy_url,
            "DATA_DIR": str(data_dir),
            "DEEPRESEARCH_ENV_FILE": str(env_file),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def graded(out: Path, dataset: Path) -> list[dict[str, Any]]:
    """Each question's report and the judge's record, in the dataset's order."""
    items = []
    for line in dataset.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        ident = json.loads(line)["id"]
        result = json.loads((out / f"{ident}.json").read_text(encoding="utf-8"))
        judge = result.get("judge") or {}
        items.append(
            {
                "id": ident,
                "question": result["question"],
                "report": result["report"],
                "judge": {
                    key: judge.get(key)
                    for key in ("status", "scores", "reasons", "error", "seconds", "attempts")
                },
            }
        )
    return items


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", default=DEFAULT_UPSTREAM)
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--out", type=Path, default=JUDGE_CASSETTE)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)

    model_id = check_upstream(args.upstream)
    print(f"upstream {args.upstream} serves {model_id}", file=sys.stderr)
    try:
        shown = args.dataset.resolve().relative_to(ROOT)
    except ValueError:
        shown = args.dataset
    command_text = shlex.join(["deepresearch", "eval", str(shown), "--mode", "quick"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="record-judge-") as tmp:
        work = Path(tmp)
        env_file = work / "empty.env"
        env_file.write_text("", encoding="utf-8")
        out = work / "out"
        command = [
            *deepresearch_command(),
            "eval",
            str(args.dataset),
            "--mode",
            "quick",
            "--out",
            str(out),
        ]
        header = header_line(
            args.out.stem,
            model=model_id,
            base_url=args.upstream,
            command=command_text,
            env=JUDGE_ENV,
        )
        with RecordingProxy(
            args.upstream, partial, header=header, max_concurrent_upstream=1
        ) as proxy:
            env = child_environment(proxy.base_url, work / "data", env_file)
            started = time.monotonic()
            try:
                done = subprocess.run(command, cwd=ROOT, env=env, timeout=args.timeout, check=False)
                exit_code: int | None = done.returncode
            except subprocess.TimeoutExpired:
                exit_code = None
            seconds = time.monotonic() - started
            requests = proxy.recorded
        if exit_code is None or not (out / "summary.json").exists():
            print(f"record_judge_transcript: the eval did not finish (exit {exit_code})")
            return 1
        items = graded(out, args.dataset)
    cassette = load_cassette(partial)
    header = {**(cassette.header or header), "graded": items, "wall_seconds": round(seconds, 1)}
    save_cassette(args.out, cassette.exchanges, header)
    partial.unlink()
    for item in items:
        judge = item["judge"]
        print(f"{item['id']}: {judge['status']} {judge['scores']} in {judge['seconds']} s")
        for name, reason in (judge.get("reasons") or {}).items():
            print(f"    {name}: {reason}")
        if judge.get("error"):
            print(f"    error: {judge['error']}")
    print(f"{requests} exchanges in {seconds:.1f} s -> {args.out}")
    all_graded = all(item["judge"]["status"] == "graded" for item in items)
    return 0 if exit_code == 0 and all_graded else 1


if __name__ == "__main__":
    raise SystemExit(main())
