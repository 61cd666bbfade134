"""`deepresearch eval DATASET.jsonl`: run each question as a session and score the answers.

Writes one JSON file per question and `summary.json` to `--out` (default: a new folder under
`DATA_DIR/evals/`), prints a summary table, and exits 1 when `--baseline` (an earlier
summary.json) shows a regression. `--export-drb FILE` writes the reports as
`{"id", "prompt", "article"}` lines, the input DeepResearch Bench's RACE and FACT scorers read.

With `ENABLE_ONLINE_EVALS=true` a judge model (`EVAL_MODEL` at `EVAL_BASE_URL`, else the
writer's) grades each report on comprehensiveness, insight, instruction following and
readability (engine/evals/judge.py); off, nothing of the judge is imported. A judge that
cannot be asked (the offline model, OpenAI without a key) stops the eval before it starts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import load_settings
from engine.terminal_text import one_line

if TYPE_CHECKING:
    from engine.evals.judge import Judge
    from engine.evals.score import QuestionResult

EXIT_REGRESSION = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="run a dataset of questions and score the answers",
        description="Run each question of DATASET.jsonl as a session (plan approved as "
        "proposed) and score it: facts found, the right page cited, citations kept and "
        "removed, unsupported claims, latency, tokens; with ENABLE_ONLINE_EVALS=true, a judge "
        "model's grades (EVAL_MODEL, EVAL_BASE_URL). Exit codes: 0 done, 1 a regression "
        "against --baseline, 2 bad arguments, dataset or judge settings.",
    )
    parser.add_argument("dataset", type=Path, metavar="DATASET.jsonl")
    parser.add_argument("--mode", choices=("quick", "deep", "auto"), default="quick")
    parser.add_argument("--concurrency", type=int, default=1, metavar="N")
    parser.add_argument("--out", type=Path, metavar="DIR", help="where results are written")
    parser.add_argument("--baseline", type=Path, metavar="SUMMARY.json")
    parser.add_argument("--export-drb", type=Path, metavar="FILE.jsonl", dest="export_drb")
    parser.set_defaults(handler=evaluate)


def evaluate(args: argparse.Namespace, *, deps: Any = None) -> int:
    from engine.evals.dataset import DatasetError, load_dataset

    try:
        questions = load_dataset(args.dataset)
        baseline = _read_baseline(args.baseline) if args.baseline else None
    except (DatasetError, ValueError) as exc:
        print(f"deepresearch eval: {exc}", file=sys.stderr)
        return 2
    if args.concurrency < 1:
        print("deepresearch eval: --concurrency must be at least 1", file=sys.stderr)
        return 2
    settings = load_settings()
    problem = _judge_problem(settings)
    if problem:
        print(f"deepresearch eval: {problem}", file=sys.stderr)
        return 2
    if not settings.enable_online_evals and (settings.eval_model or settings.eval_base_url):
        print(
            "deepresearch eval: EVAL_MODEL/EVAL_BASE_URL are set but ENABLE_ONLINE_EVALS is "
            "not true: the reports are not judged",
            file=sys.stderr,
        )
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or settings.data_dir / "evals" / stamp
    out.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_evaluate(settings, args, questions, out, baseline, deps))


def _judge_problem(settings: Any) -> str:
    """Why the judge that is switched on cannot be asked ("" when it can, or is off)."""
    if not settings.enable_online_evals:
        return ""
    from engine.evals.judge import JudgeSetupError, judge_target

    try:
        judge_target(settings)
    except JudgeSetupError as exc:
        return str(exc)
    return ""


def _judge_marks(judge: dict[str, Any] | None) -> str:
    """The progress line's note of the judge's grades."""
    if judge is None:
        return ""
    scores = judge.get("scores") or {}
    if judge.get("status") in ("graded", "partial"):
        shown = "/".join("-" if value is None else str(value) for value in scores.values())
        return f" judge {shown} ({judge.get('seconds', 0):.0f} s)"
    return f" judge {judge.get('status')}: {one_line(str(judge.get('error', '')))[:160]}"


def _read_baseline(path: Path) -> dict[str, Any]:
    from engine.evals.score import GATED

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"--baseline {path}: not a summary.json ({exc})") from None
    summary = data.get("summary", data) if isinstance(data, dict) else None
    if not isinstance(summary, dict) or not all(
        isinstance(summary.get(name, 0.0), int | float) for name in GATED
    ):
        raise ValueError(f"--baseline {path}: not a summary.json (numbers for {', '.join(GATED)})")
    return summary


async def _evaluate(
    settings: Any,
    args: argparse.Namespace,
    questions: list[Any],
    out: Path,
    baseline: dict[str, Any] | None,
    deps: Any,
) -> int:
    from engine.evals.run import run_questions
    from engine.evals.score import regressions, summarize

    judge = _start_judge(settings)
    try:
        results = await run_questions(
            settings,
            questions,
            mode=args.mode,
            concurrency=args.concurrency,
            on_result=_Progress(out, len(questions)),
            deps=deps,
            judge=judge.grade_result if judge is not None else None,
        )
    finally:
        if judge is not None:
            await judge.aclose()
    summary = summarize(results)
    _write_summary(out, args, summary, judge)
    if args.export_drb:
        _export_drb(args.export_drb, results)
    _print_summary(summary, out)
    if baseline is None:
        return 0
    found = regressions(summary, baseline)
    for line in found:
        print(f"regression: {line}", file=sys.stderr)
    return EXIT_REGRESSION if found else 0


class _Progress:
    """Writes each question's result as it comes in and says so on stderr."""

    def __init__(self, out: Path, total: int) -> None:
        self.out = out
        self.total = total
        self.done = 0

    def __call__(self, result: QuestionResult) -> None:
        self.done += 1
        (self.out / f"{result.id}.json").write_text(
            json.dumps(result.as_json(), indent=2, ensure_ascii=False), encoding="utf-8"
        )
        marks = ""
        if result.scored:
            marks = (
                f" facts {result.facts_found}/{result.facts_expected}"
                f" source {'yes' if result.right_source else 'no'}"
            )
        judged = _judge_marks(result.judge)
        print(
            f"[{self.done}/{self.total}] {result.id} {result.status}{marks} "
            f"{result.seconds:.1f} s{judged}",
            file=sys.stderr,
            flush=True,
        )


def _start_judge(settings: Any) -> Judge | None:
    """The judge that grades each report, when online evals are on."""
    if not settings.enable_online_evals:
        return None
    from engine.evals.judge import Judge

    judge = Judge(settings)
    print(
        f"judge: {judge.target.model} at {judge.target.endpoint} grades each report",
        file=sys.stderr,
    )
    return judge


def _write_summary(
    out: Path, args: argparse.Namespace, summary: dict[str, Any], judge: Judge | None
) -> None:
    record: dict[str, Any] = {"dataset": str(args.dataset), "mode": args.mode}
    if judge is not None:
        record["judge"] = {"model": judge.target.model, "endpoint": judge.target.endpoint}
    record["summary"] = summary
    (out / "summary.json").write_text(json.dumps(record, indent=2), encoding="utf-8")


def _export_drb(path: Path, results: list[QuestionResult]) -> None:
    """The reports as DeepResearch Bench reads them: `{"id", "prompt", "article"}` lines."""
    lines = [
        json.dumps({"id": r.id, "prompt": r.question, "article": r.report}, ensure_ascii=False)
        for r in results
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _print_summary(summary: dict[str, Any], out: Path) -> None:
    width = max(len(name) for name in summary)
    for name, value in summary.items():
        print(f"{name.ljust(width)}  {'n/a' if value is None else value}")
    print(f"results: {one_line(str(out))}", file=sys.stderr)
