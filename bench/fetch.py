"""fetch_page throughput: pages per second fetched and extracted at concurrency 1, 4 and 16.

The offline web server runs in a separate process (so it does not compete with the fetcher
for this process's GIL) and serves real pages: the Python documentation pages of the sample
corpus, which make extraction the CPU-bound part. Target: concurrency 16 reaches at least
1.8× the pages per second of concurrency 1.

    uv run python bench/fetch.py [--pages 48]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.config import SAMPLE_CORPUS, settings_from_mapping
from engine.tools.fetch import fetch_page

# Mid-sized documentation pages (30-150 KB): realistic articles, not the largest references.
PAGE_NAMES = [
    "asyncio-task.html",
    "asyncio-queue.html",
    "asyncio-sync.html",
    "asyncio-subprocess.html",
    "asyncio-exceptions.html",
    "asyncio-dev.html",
    "asyncio-runner.html",
    "asyncio-future.html",
    "contextvars.html",
    "queue.html",
    "json.html",
    "venv.html",
    "tutorial-classes.html",
    "tutorial-errors.html",
    "tutorial-modules.html",
    "concurrent.futures.html",
]


def _serve(port_queue: multiprocessing.Queue, stop: multiprocessing.Event) -> None:  # type: ignore[type-arg]
    from tests.fixtures.web_server import WebServer

    pages = {name: (SAMPLE_CORPUS / name).read_text(encoding="utf-8") for name in PAGE_NAMES}
    with WebServer(pages=pages) as web:
        port_queue.put(web.port)
        stop.wait()


async def run_level(base_url: str, settings, concurrency: int, pages: int) -> float:
    gate = asyncio.Semaphore(concurrency)
    urls = [f"{base_url}/{PAGE_NAMES[i % len(PAGE_NAMES)]}" for i in range(pages)]

    async def one(url: str) -> int:
        async with gate:
            page = await fetch_page(url, settings)
            return len(page.text)

    started = time.perf_counter()
    sizes = await asyncio.gather(*(one(url) for url in urls))
    elapsed = time.perf_counter() - started
    assert all(size > 500 for size in sizes), "a page came back nearly empty"
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=48)
    args = parser.parse_args()

    context = multiprocessing.get_context("spawn")
    ports: multiprocessing.Queue = context.Queue()  # type: ignore[type-arg]
    stop = context.Event()
    server = context.Process(target=_serve, args=(ports, stop), daemon=True)
    server.start()
    try:
        port = ports.get(timeout=60)
        base = f"http://127.0.0.1:{port}"
        settings = settings_from_mapping(
            {"FETCH_ALLOWED_HOSTS": f"127.0.0.1:{port}", "FETCH_TIMEOUT_SECONDS": "120"}
        )

        async def all_levels() -> list[tuple[int, float]]:
            await run_level(base, settings, 4, len(PAGE_NAMES))  # warm-up: imports, caches
            return [(c, await run_level(base, settings, c, args.pages)) for c in (1, 4, 16)]

        results = asyncio.run(all_levels())
    finally:
        stop.set()
        server.join(timeout=10)

    print(f"{args.pages} fetches of {len(PAGE_NAMES)} documentation pages, {os.cpu_count()} CPUs\n")
    header = f"{'concurrency':>11} {'seconds':>8} {'pages/s':>8} {'speed-up':>9}"
    print(header)
    print("-" * len(header))
    baseline = args.pages / results[0][1]
    for concurrency, elapsed in results:
        rate = args.pages / elapsed
        print(f"{concurrency:>11} {elapsed:>8.2f} {rate:>8.2f} {rate / baseline:>8.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
