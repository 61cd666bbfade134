"""Local document search: index build time and query latency (p50/p95).

Runs on the sample corpus (docs/samples) and on the same corpus replicated 20× (each copy in
its own sub-folder, so every chunk exists 20 times under distinct document keys). The
replicated index reuses the text extracted from the originals, so it measures indexing and
querying rather than 20 more rounds of HTML extraction. Target: p95 < 20 ms on the 20× corpus.

    uv run python bench/local_search.py [--replicas 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.config import SAMPLE_CORPUS
from engine.tools.documents import ParsedDocument, parse_file
from engine.tools.local_index import LocalIndex

QUERIES = [
    "How are asyncio tasks cancelled?",
    "asyncio TaskGroup exception handling",
    "asyncio.timeout and wait_for",
    "shield a task from cancellation",
    "run blocking code in a thread from asyncio",
    "asyncio queue producer consumer",
    "asyncio subprocess communicate",
    "event loop call_soon_threadsafe",
    "debug mode slow callbacks asyncio",
    "threading Lock RLock Condition",
    "ThreadPoolExecutor map timeout",
    "multiprocessing Pool start methods spawn fork",
    "contextvars copy_context run",
    "sqlite3 connection commit isolation_level",
    "json dumps indent sort_keys",
    "pathlib glob rglob",
    "logging handlers formatters configuration",
    "unittest mock patch",
    "typing Protocol TypeVar generics",
    "dataclasses field default_factory frozen",
    "functools lru_cache partial",
    # Whole questions whose answer lacks some of their words: the slower, relaxed path.
    "How many seconds does an sqlite3 connection wait for a locked database by default?",
    "What happens to the remaining tasks of a TaskGroup when one of them raises an exception?",
    "Which exception does the root logger raise when no handler is configured at all?",
    "itertools groupby chain",
    "regular expression named groups",
    "subprocess run check capture_output",
    "socket timeout non-blocking",
    "ssl create_default_context certificate verification",
    "http.client HTTPSConnection request",
    "urllib.request urlopen headers",
    "virtual environments venv create",
    "classes inheritance super tutorial",
]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))
    return ordered[index]


def measure(index: LocalIndex, rounds: int) -> tuple[float, float, float]:
    index.search(QUERIES[0], 8)  # warm the page cache
    timings = []
    for _ in range(rounds):
        for query in QUERIES:
            started = time.perf_counter()
            index.search(query, 16)
            timings.append((time.perf_counter() - started) * 1000)
    return percentile(timings, 0.5), percentile(timings, 0.95), statistics.fmean(timings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-local-"))
    rows: list[tuple[str, int, int, float, float, float, float]] = []
    try:
        sample = LocalIndex(work / "sample.sqlite", SAMPLE_CORPUS)
        started = time.perf_counter()
        stats = sample.refresh()
        build = time.perf_counter() - started
        p50, p95, mean = measure(sample, args.rounds)
        rows.append(("sample corpus", stats.files_indexed, stats.chunks, build, p50, p95, mean))

        # Replicate: copies of every file in N sub-folders (the index refuses hard-linked
        # files, which may reach outside the documents folder).
        replicated = work / "replicated"
        for copy in range(args.replicas):
            target = replicated / f"copy{copy:02d}"
            target.mkdir(parents=True)
            for source in SAMPLE_CORPUS.iterdir():
                if source.is_file():
                    shutil.copy2(source, target / source.name)

        extracted: dict[str, ParsedDocument] = {}

        def reuse_extraction(path: Path, rel: str) -> ParsedDocument:
            name = path.name
            if name not in extracted:
                extracted[name] = parse_file(path, name)
            original = extracted[name]
            chunks = [
                replace(chunk, key=chunk.key.replace(name, rel, 1)) for chunk in original.chunks
            ]
            return ParsedDocument(original.title, chunks)

        big = LocalIndex(work / "replicated.sqlite", replicated, parser=reuse_extraction)
        started = time.perf_counter()
        big_stats = big.refresh()
        big_build = time.perf_counter() - started
        p50, p95, mean = measure(big, args.rounds)
        label = f"sample × {args.replicas}"
        rows.append((label, big_stats.files_indexed, big_stats.chunks, big_build, p50, p95, mean))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"{len(QUERIES)} queries × {args.rounds} rounds, 16 results each\n")
    header = (
        f"{'corpus':<16} {'files':>6} {'chunks':>7} {'build s':>8} "
        f"{'p50 ms':>7} {'p95 ms':>7} {'mean ms':>8}"
    )
    print(header)
    print("-" * len(header))
    for label, files, chunks, build_s, p50, p95, mean in rows:
        print(
            f"{label:<16} {files:>6} {chunks:>7} {build_s:>8.1f} {p50:>7.2f} {p95:>7.2f} "
            f"{mean:>8.2f}"
        )
    print("\n(the replicated build reuses extracted text: it times chunking and indexing only)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
