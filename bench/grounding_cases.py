"""The audit cases of bench/grounding.py: each sentence through the verifier's checks."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.events import ClaimSupport  # noqa: E402
from engine.grounding.assess import Assessed, assessed_claim  # noqa: E402
from engine.grounding.judge import JudgeItem, SupportJudge  # noqa: E402
from engine.grounding.judged import with_outcome  # noqa: E402
from engine.grounding.passages import Passage  # noqa: E402

CASES = ROOT / "tests" / "fixtures" / "grounding" / "audit_cases.jsonl"


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _page_reader() -> Any:
    """A sample document's whole indexed text by its key."""
    from engine.config import SAMPLE_CORPUS
    from engine.tools.local_index.index import LocalIndex

    folder = Path(tempfile.mkdtemp(prefix="grounding-bench-"))
    index = LocalIndex(folder / "index.sqlite", SAMPLE_CORPUS)
    index.ensure_fresh()

    def read(key: str) -> str:
        document = index.document(key)
        return " ".join(document.text.split()) if document is not None else ""

    return read


def _passages(case: dict[str, Any], read: Any) -> list[Passage]:
    return [
        Passage(source["key"], 0, source.get("text") or read(source["key"]))
        for source in case["sources"]
    ]


def lexical(case: dict[str, Any], read: Any) -> Assessed:
    passages = _passages(case, read)
    claim = ClaimSupport(text=case["sentence"], numbers=[1])
    return assessed_claim(claim, case["sentence"], passages, lambda: passages)


def outcome(assessed: Assessed) -> str:
    """removed | marked | kept, as strict grounding would act."""
    claim = assessed.claim
    if claim.answers_question is False:
        return "marked"
    if claim.status != "unsupported":
        return "kept"
    return "removed" if assessed.removable else "marked"


def measures(cases: list[dict[str, Any]], outcomes: list[str]) -> dict[str, float]:
    count: Counter[str] = Counter()
    for case, acted in zip(cases, outcomes, strict=True):
        truly = case["verdict"] != "supported"
        flagged = acted != "kept"
        count[("t" if flagged == truly else "f") + ("p" if flagged else "n")] += 1
        if not truly:
            continue
    supported = [
        acted for case, acted in zip(cases, outcomes, strict=True) if case["verdict"] == "supported"
    ]
    flags = count["tp"] + count["fp"]
    positive = count["tp"] + count["fn"]
    return {
        "precision": count["tp"] / flags if flags else 1.0,
        "recall": count["tp"] / positive if positive else 1.0,
        "false_removal": supported.count("removed") / len(supported) if supported else 0.0,
        "supported": len(supported),
        "cases": len(cases),
    }


def _line(name: str, found: dict[str, float]) -> str:
    return (
        f"{name:<26} | {found['cases']:>5.0f} | {found['precision']:.3f}     | "
        f"{found['recall']:.3f}  | {found['false_removal']:.3f} ({found['supported']:.0f} true)"
    )


async def _judged(cases: list[dict[str, Any]], read: Any, judge: SupportJudge) -> list[str]:
    """Each case as the judge leaves it."""
    lexicals = [lexical(case, read) for case in cases]
    items = [
        JudgeItem(case["sentence"].rsplit(" [", 1)[0], tuple(_passages(case, read)))
        for case in cases
    ]
    groups: dict[str | None, list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault(case.get("question"), []).append(index)
    found: dict[int, str] = {}
    for question, indexes in groups.items():
        outcomes = await judge.judge([items[i] for i in indexes], question)
        for index, judged in zip(indexes, outcomes, strict=True):
            found[index] = outcome(with_outcome(lexicals[index], judged))
    return [found[index] for index in range(len(cases))]


def audit_report(*, judge: bool = False) -> None:
    cases = load_cases()
    read = _page_reader()
    print(f"audit cases: {len(cases)} ({dict(Counter(c['split'] for c in cases))})")
    print("path / half                | cases | precision | recall | false removals")
    print("---------------------------+-------+-----------+--------+---------------")
    for half in ("dev", "holdout"):
        chosen = [case for case in cases if case["split"] == half]
        acted = [outcome(lexical(case, read)) for case in chosen]
        print(_line(f"lexical, {half}", measures(chosen, acted)))
    if not judge:
        return
    from engine.config import load_settings
    from engine.grounding.calibration import calibrate
    from engine.grounding.support_judge import support_judge, support_judge_label
    from engine.models.factory import make_chat_model

    settings = load_settings()
    made = support_judge(settings, lambda role: make_chat_model(settings, role))
    if made is None:
        print("judge: not run (no model configured, or GROUNDING_JUDGE=off)")
        return
    made.max_calls = 10_000  # the bench judges every case; a report is capped
    holdout = [case for case in cases if case["split"] == "holdout"]
    acted = asyncio.run(_judged(holdout, read, made))
    print(_line(f"judge ({support_judge_label(settings)}), holdout", measures(holdout, acted)))
    # What GROUNDING_JUDGE=auto does with this model: its verdicts only if it passes.
    calibration = asyncio.run(calibrate(made, whole=True))
    if calibration is None:
        print("calibration: its calls failed, so auto would keep the rules' verdicts")
        return
    print(f"calibration: {calibration.describe()}: {'passed' if calibration.passed else 'failed'}")
    gated = acted if calibration.passed else [outcome(lexical(case, read)) for case in holdout]
    print(_line("judge as auto uses it", measures(holdout, gated)))
