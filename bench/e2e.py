"""A full offline research session on the sample corpus: time, memory, events, evidence.

    uv run python bench/e2e.py [--runs N] [--question TEXT]

The offline extractive model drives the real graph (route, scope, plan, supervisor with
parallel researchers, writer, citation verification) over `docs/samples/` with the local
search provider. The index is built once first (reported separately: it is a one-time cost
per data directory); then N sessions run on the warm index, and one more under tracemalloc
for the Python heap peak. Prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.config import SAMPLE_CORPUS, settings_from_mapping  # noqa: E402
from engine.events import EvidenceAdded, PlanProposed, ReportReady, RunFailed  # noqa: E402
from engine.run.runner import open_session  # noqa: E402
from engine.schemas import PlanDecision  # noqa: E402
from engine.tools.local_index import LocalIndex  # noqa: E402

QUESTION = "How are asyncio tasks cancelled and how do timeouts use cancellation?"


@dataclass
class SessionFigures:
    seconds: float
    events: int
    evidence: int
    kept: int
    removed: int
    event_types: Counter[str]


async def one_session(data_dir: Path, question: str) -> SessionFigures:
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    started = time.perf_counter()
    events = []
    async with open_session(settings) as session:
        async for event in session.start(question, mode="deep"):
            events.append(event)
        if any(isinstance(e, PlanProposed) for e in events):
            async for event in session.review_plan(PlanDecision(action="approve")):
                events.append(event)
    seconds = time.perf_counter() - started
    failures = [e for e in events if isinstance(e, RunFailed)]
    if failures:
        raise SystemExit(f"session failed: {failures[-1].error}")
    report = next(e for e in events if isinstance(e, ReportReady))
    return SessionFigures(
        seconds=seconds,
        events=len(events),
        evidence=sum(isinstance(e, EvidenceAdded) for e in events),
        kept=len(report.kept_citations),
        removed=len(report.removed_citations),
        event_types=Counter(e.type for e in events),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        started = time.perf_counter()
        stats = LocalIndex(data_dir / "index.sqlite", SAMPLE_CORPUS).refresh()
        index_seconds = time.perf_counter() - started

        runs = [asyncio.run(one_session(data_dir, args.question)) for _ in range(args.runs)]
        tracemalloc.start()
        traced = asyncio.run(one_session(data_dir, args.question))
        _, heap_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    max_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux

    last = runs[-1]
    times = [r.seconds for r in runs]
    rows = [
        ("question", args.question),
        ("sample corpus index build (one-time, cold)", f"{index_seconds:.2f} s ({stats})"),
        (f"session wall time, median of {args.runs}", f"{statistics.median(times):.2f} s"),
        ("session wall time, min / max", f"{min(times):.2f} / {max(times):.2f} s"),
        ("session wall time under tracemalloc", f"{traced.seconds:.2f} s"),
        ("peak Python heap (tracemalloc)", f"{heap_peak / 1e6:.1f} MB"),
        ("peak RSS of the process (ru_maxrss)", f"{max_rss_kb / 1024:.1f} MB"),
        ("events emitted", str(last.events)),
        ("evidence records", str(last.evidence)),
        ("citations kept / removed", f"{last.kept} / {last.removed}"),
        ("events by type", ", ".join(f"{k}={v}" for k, v in sorted(last.event_types.items()))),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"{'measure':<{width}} | value")
    print(f"{'-' * width}-+-{'-' * 40}")
    for name, value in rows:
        print(f"{name:<{width}} | {value}")


if __name__ == "__main__":
    main()
