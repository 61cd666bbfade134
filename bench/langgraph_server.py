"""LangGraph Server under load: concurrent quick sessions through `langgraph dev`, offline.

    uv run python bench/langgraph_server.py [--sessions 20] [--jobs 20]

Starts `langgraph dev` from the repository root with docs/deploy/langgraph.json (the offline
model, local search over docs/samples, the blocking-call detector on), runs one quick session
alone, then N at once, each on its own thread, through `langgraph_sdk` with
`stream_mode=["custom", "updates"]` and `stream_subgraphs=True`, and prints one table:

- completed: sessions whose stream ended with a `report_ready` event and no error;
- time to first event: from asking for the run to its first typed event, p50 and p95;
- events lost: for each session, the typed events the lone run delivered that it did not
  (counted per type), summed. Timing and liveness events (`metric_recorded`,
  `model_call_progress`) depend on how long calls take, so they are left out of the count.

`--jobs` is the server's `--n-jobs-per-worker`: `langgraph dev` runs one run at a time
without it. Target: every session completed, 0 events lost.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langgraph_sdk import get_client  # noqa: E402

from tests.helpers.langgraph_server import langgraph_dev  # noqa: E402

QUESTION = "What does asyncio.wait_for do when the timeout expires?"
GRAPH = "deepresearch"
# Emitted by the clock (timings, liveness of a model call), not by what the run did.
TIMING_TYPES = frozenset({"metric_recorded", "model_call_progress"})


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def one_session(url: str) -> dict[str, Any]:
    client = get_client(url=url, timeout=600)
    thread = await client.threads.create(metadata={"created_by": "bench/langgraph_server.py"})
    started = time.perf_counter()
    first: float | None = None
    types: Counter[str] = Counter()
    errors: list[Any] = []
    async for part in client.runs.stream(
        thread["thread_id"],
        GRAPH,
        input={"question": QUESTION, "mode": "quick"},
        stream_mode=["custom", "updates"],
        stream_subgraphs=True,
    ):
        if part.event == "error":
            errors.append(part.data)
        if part.event.split("|")[0] != "custom":
            continue
        if first is None:
            first = time.perf_counter() - started
        kind = str(part.data.get("type", ""))
        if kind not in TIMING_TYPES:
            types[kind] += 1
    return {"first": first, "types": types, "errors": errors, "wall": time.perf_counter() - started}


def lost(reference: Counter[str], got: Counter[str]) -> int:
    return sum(max(0, count - got[kind]) for kind, count in reference.items())


async def measure(url: str, sessions: int) -> tuple[dict[str, Any], list[dict[str, Any]], float]:
    alone = await one_session(url)
    started = time.perf_counter()
    results = await asyncio.gather(*(one_session(url) for _ in range(sessions)))
    return alone, list(results), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with langgraph_dev(jobs_per_worker=args.jobs) as url:
        alone, results, wall = asyncio.run(measure(url, args.sessions))
    reference: Counter[str] = alone["types"]
    completed = [r for r in results if not r["errors"] and r["types"]["report_ready"] == 1]
    firsts = [r["first"] for r in results if r["first"] is not None]
    missing = sum(lost(reference, r["types"]) for r in results)
    rows = [
        ("load average before (1 min)", f"{load_before:.1f}", ""),
        ("sessions (concurrent, quick)", str(args.sessions), ""),
        ("server jobs per worker", str(args.jobs), ""),
        ("typed events of the lone run", str(sum(reference.values())), ""),
        ("first event of the lone run, ms", f"{alone['first'] * 1000:.0f}", ""),
        ("completed", f"{len(completed)}/{args.sessions}", f"{args.sessions}/{args.sessions}"),
        ("wall time, s", f"{wall:.1f}", ""),
        ("first event p50, ms", f"{statistics.median(firsts) * 1000:.0f}" if firsts else "-", ""),
        ("first event p95, ms", f"{percentile(firsts, 0.95) * 1000:.0f}" if firsts else "-", ""),
        ("events lost", str(missing), "0"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)} | value | target")
    print(f"{'-' * width}-+-------+-------")
    for name, value, target in rows:
        print(f"{name.ljust(width)} | {value} | {target}")


if __name__ == "__main__":
    main()
