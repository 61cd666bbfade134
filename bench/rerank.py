"""Passage reranking: its speed, and whether deep answers reach the model instead of the head.

Part 1 times `split_chunks` and the whole `select_passages` (chunk, BM25, select, render) on a
100 KB and a 1 MB text made of the sample corpus pages (docs/samples) as `fetch_url` extracts
them, median of several runs. Part 2 asks questions whose answer sits deep in a long sample
page (past the first 8,000 characters) and checks whether the expected phrase is in the 8,000
characters the model is shown: the head of the text (before reranking) versus the passages
reranked against the question.

    uv run python bench/rerank.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.config import SAMPLE_CORPUS
from engine.tools.extract import clip, extract_html
from engine.tools.fetch import MAX_TEXT_CHARS
from engine.tools.rerank import select_passages, split_chunks

TIMING_QUERY = "How does asyncio.shield protect a task from cancellation?"

# (page, question, a phrase of the answer); each phrase sits past the first 8,000 characters.
DEEP_QUESTIONS = [
    (
        "asyncio-task.html",
        "How can I shield a task from cancellation?",
        "Protect an awaitable object from being",
    ),
    (
        "asyncio-task.html",
        "How do I list the tasks that have not finished yet in the event loop?",
        "Return a set of not yet finished",
    ),
    (
        "subprocess.html",
        "How do I start a child process with its own console window on Windows?",
        "The new process has a new console",
    ),
    (
        "sqlite3.html",
        "How do I back up an SQLite database while other clients use it?",
        "Create a backup of an SQLite database",
    ),
    (
        "logging.html",
        "Where do log messages go when no handler is configured on the logger?",
        "the message will be sent to the handler set on",
    ),
    (
        "re.html",
        "How can I write a regular expression over several lines with comments?",
        "Whitespace within the pattern is ignored",
    ),
    (
        "threading.html",
        "How do a fixed number of threads wait for each other before continuing?",
        "fixed number of threads that need to wait for each other",
    ),
    (
        "typing.html",
        "How do I declare several call signatures for one function for the type checker?",
        "support multiple different combinations of argument types",
    ),
    (
        "pathlib.html",
        "How do I search a directory tree recursively for files matching a pattern?",
        "This is like calling `Path.glob()` with",
    ),
    (
        "unittest.html",
        "How do I tell apart loop iterations inside a single test method?",
        "distinguish them inside the body of a test method",
    ),
    (
        "socket.html",
        "Why can a server socket be rebound at once to an address in TIME_WAIT state?",
        "immediately reuse previous sockets",
    ),
    (
        "asyncio-eventloop.html",
        "How do I turn on debug mode for the asyncio event loop?",
        "Set the debug mode of the event loop",
    ),
]


def flat(text: str) -> str:
    return " ".join(text.split())


def page_text(name: str) -> str:
    return extract_html((SAMPLE_CORPUS / name).read_text(encoding="utf-8")).text


def median_ms(action: Callable[[], object], runs: int) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def timing_table(runs: int) -> None:
    corpus = "\n\n".join(page_text(path.name) for path in sorted(SAMPLE_CORPUS.glob("*.html")))
    print(f"Speed: chunk + BM25 + select {MAX_TEXT_CHARS:,} chars, median of {runs} runs\n")
    header = f"{'text':>8} {'chunks':>7} {'chunk ms':>9} {'select ms':>10} {'MB/s':>6}"
    print(header)
    print("-" * len(header))
    for size in (100_000, 1_000_000):
        text = (corpus * (size // len(corpus) + 1))[:size]
        chunks = len(split_chunks(text))
        chunk_ms = median_ms(partial(split_chunks, text), runs)
        select_ms = median_ms(partial(select_passages, text, TIMING_QUERY, MAX_TEXT_CHARS), runs)
        label = f"{size // 1000:,} KB"
        print(
            f"{label:>8} {chunks:>7} {chunk_ms:>9.1f} {select_ms:>10.1f} "
            f"{size / 1e6 / (select_ms / 1000):>6.1f}"
        )
    print("('select' includes chunking; fetch_url runs it in a worker thread)\n")


def deep_table() -> None:
    print(f"Deep answers: is the phrase in the {MAX_TEXT_CHARS:,} chars shown?\n")
    header = f"{'page':<24} {'page chars':>10} {'phrase at':>9} {'head':>5} {'rerank':>7}  question"
    print(header)
    print("-" * len(header))
    head_hits = rerank_hits = 0
    for name, question, phrase in DEEP_QUESTIONS:
        text = page_text(name)
        at = flat(text).find(phrase)
        head = flat(clip(text, MAX_TEXT_CHARS))
        reranked = flat(select_passages(text, question, MAX_TEXT_CHARS))
        in_head, in_rerank = phrase in head, phrase in reranked
        head_hits += in_head
        rerank_hits += in_rerank
        print(
            f"{name:<24} {len(text):>10,} {at:>9,} {'yes' if in_head else 'no':>5} "
            f"{'yes' if in_rerank else 'no':>7}  {question}"
        )
    total = len(DEEP_QUESTIONS)
    print("-" * len(header))
    print(f"{'found':<24} {'':>10} {'':>9} {head_hits:>2}/{total:<2} {rerank_hits:>4}/{total:<2}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    timing_table(args.runs)
    deep_table()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
