"""How well grounding flags unsupported sentences, how often it removes a true one, how fast.

Two sets, both in tests/fixtures/grounding/:
- `labelled_claims.jsonl`: claim–passage pairs scored by `engine.grounding.score.score_claim`
  (the lexical screens): precision and recall of "unsupported", and 1,000 claims timed.
- `audit_cases.jsonl`: (sentence, sources, verdict) cases from real reports and the labelled
  pairs, split into a dev half and a holdout half (by a hash of each id). Each case goes
  through what the verifier does with a sentence (engine/grounding/assess.py): a source
  given by key alone is read whole from the sample index, as a local document is. For the
  lexical path, and with `--judge` for the model judge on the holdout half only, it prints
  precision and recall on unsupported sentences (flagged = marked or removed) and the
  false-removal rate (supported sentences removed). "off_question" cases (true of their
  source, not of what was asked) count as unsupported.

    uv run python bench/grounding.py [--sweep] [--judge]

--judge asks the model GROUNDING_JUDGE would use (the environment's settings; the shared local
server at 127.0.0.1:8081 when `local-llm env` is loaded), a few sentences per call.
--sweep also prints precision and recall for other values of the weak threshold (WEAK_AT).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.grounding_cases import audit_report  # noqa: E402
from engine.grounding import score as scoring  # noqa: E402

LABELLED = ROOT / "tests" / "fixtures" / "grounding" / "labelled_claims.jsonl"
TIMED_CLAIMS = 1_000
RUNS = 5


def load_pairs(path: Path = LABELLED) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def confusion(pairs: list[dict[str, str]]) -> tuple[Counter[str], Counter[str]]:
    """(outcome counts, misses per kind): tp/fp/fn/tn with 'unsupported' as positive."""
    outcome: Counter[str] = Counter()
    misses: Counter[str] = Counter()
    for pair in pairs:
        flagged = scoring.score_claim(pair["claim"], [pair["passage"]]).status == "unsupported"
        truly = pair["label"] == "unsupported"
        key = {(True, True): "tp", (True, False): "fp", (False, True): "fn"}.get(
            (flagged, truly), "tn"
        )
        outcome[key] += 1
        if key in ("fp", "fn"):
            misses[pair["kind"]] += 1
    return outcome, misses


def precision_recall(outcome: Counter[str]) -> tuple[float, float]:
    flagged = outcome["tp"] + outcome["fp"]
    unsupported = outcome["tp"] + outcome["fn"]
    return (
        outcome["tp"] / flagged if flagged else 1.0,
        outcome["tp"] / unsupported if unsupported else 1.0,
    )


def time_scoring(pairs: list[dict[str, str]]) -> float:
    """Median seconds to score TIMED_CLAIMS claims (passages prepared fresh each run)."""
    claims = [pairs[i % len(pairs)] for i in range(TIMED_CLAIMS)]
    timings = []
    for _ in range(RUNS):
        scoring._prepared.cache_clear()
        started = time.perf_counter()
        for pair in claims:
            scoring.score_claim(pair["claim"], [pair["passage"]])
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sweep", action="store_true", help="try other WEAK_AT thresholds")
    parser.add_argument("--judge", action="store_true", help="judge the holdout half too")
    args = parser.parse_args()
    pairs = load_pairs()
    outcome, misses = confusion(pairs)
    precision, recall = precision_recall(outcome)
    seconds = time_scoring(pairs)
    kinds = Counter(pair["kind"] for pair in pairs)
    print(
        f"labelled pairs: {len(pairs)} ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))})"
    )
    print()
    print("measure                         | value  | target")
    print("--------------------------------+--------+-------")
    print(f"precision of 'unsupported'      | {precision:.3f}  | >= 0.9")
    print(f"recall of 'unsupported'         | {recall:.3f}  | >= 0.8")
    print(f"seconds for {TIMED_CLAIMS:,} claims (median) | {seconds:.3f}  | < 1")
    print()
    print(f"outcomes: {dict(outcome)}; misclassified by kind: {dict(misses) or 'none'}")
    if args.sweep:
        print()
        print("WEAK_AT | precision | recall")
        default = scoring.WEAK_AT
        for step in range(20, 65, 5):
            scoring.WEAK_AT = step / 100
            p, r = precision_recall(confusion(pairs)[0])
            print(f"{scoring.WEAK_AT:.2f}    | {p:.3f}     | {r:.3f}")
        scoring.WEAK_AT = default
    print()
    audit_report(judge=args.judge)


if __name__ == "__main__":
    main()
