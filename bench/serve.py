"""`deepresearch serve` under load: concurrent SSE sessions on the offline model.

    uv run python bench/serve.py [--sessions 50] [--mode quick|deep]

Starts `deepresearch serve` as a subprocess on a free 127.0.0.1 port with a fresh DATA_DIR
(offline model, the bundled corpus), opens N concurrent `POST /v1/research` streams
(auto-approved) while a second client polls `/healthz`, and prints one table:

- time to first event: from sending the request to the first SSE frame, p50 and p95;
- dropped events: events each session stored in its log that its stream did not deliver
  (the ids must also run 1..n with no gap and no repeat);
- server RSS growth: resident memory of the server and its engine process after the load
  minus before it (from /proc);
- /healthz latency under that load, p50 and p99.

Targets (issue figures): p95 first event < 300 ms, 0 dropped, RSS growth < 200 MB, healthz
p99 < 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "What is the default maxsize of asyncio.Queue?",
    "How are asyncio tasks cancelled?",
    "What does functools.lru_cache do?",
    "How does json.dumps handle non-ASCII characters?",
    "What does pathlib.Path.mkdir do when the folder exists?",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the server and its engine process)."""
    total = 0.0
    for member in [pid, *_children(pid)]:
        status = Path(f"/proc/{member}/status")
        if not status.exists():
            continue
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = task / "children"
        if children.exists():
            found += [int(child) for child in children.read_text().split()]
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def one_session(client: httpx.AsyncClient, question: str, mode: str) -> dict[str, object]:
    body = {"question": question, "mode": mode, "auto_approve": True}
    started = time.perf_counter()
    first: float | None = None
    ids: list[int] = []
    session_id = ""
    async with client.stream("POST", "/v1/research", json=body, timeout=600) as response:
        session_id = response.headers.get("x-session-id", "")
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                if first is None:
                    first = time.perf_counter() - started
                ids.append(int(line[4:]))
    return {"session_id": session_id, "first": first, "ids": ids}


async def poll_health(client: httpx.AsyncClient, stop: asyncio.Event) -> list[float]:
    timings: list[float] = []
    while not stop.is_set():
        started = time.perf_counter()
        await client.get("/healthz")
        timings.append(time.perf_counter() - started)
        await asyncio.sleep(0.02)
    return timings


async def load(base: str, sessions: int, mode: str) -> tuple[list[dict[str, object]], list[float]]:
    limits = httpx.Limits(max_connections=sessions + 10)
    async with (
        httpx.AsyncClient(base_url=base, limits=limits) as client,
        httpx.AsyncClient(base_url=base) as health,
    ):
        stop = asyncio.Event()
        poller = asyncio.create_task(poll_health(health, stop))
        results = await asyncio.gather(
            *(one_session(client, QUESTIONS[i % len(QUESTIONS)], mode) for i in range(sessions))
        )
        stop.set()
        return list(results), await poller


def stored_count(data_dir: Path, session_id: str) -> int:
    path = data_dir / "session-events" / f"{session_id}.jsonl"
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--mode", choices=("quick", "deep"), default="quick")
    args = parser.parse_args()
    data_dir = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    empty_env = data_dir / "empty.env"
    empty_env.write_text("")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))},
        "DATA_DIR": str(data_dir / "data"),
        "DOCUMENTS_PATH": str(ROOT / "docs" / "samples"),
        "SEARCH_PROVIDER": "local",
        "DEEPRESEARCH_ENV_FILE": str(empty_env),
    }
    code = "import sys; from tui.cli import main; sys.exit(main())"
    server = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", str(port)], env=env, cwd=ROOT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        # One session first, so the index, the graph and the imports are warm.
        asyncio.run(load(base, 1, args.mode))
        before = rss_mb(server.pid)
        started = time.perf_counter()
        results, health = asyncio.run(load(base, args.sessions, args.mode))
        wall = time.perf_counter() - started
        after = rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    firsts = [float(r["first"]) for r in results if r["first"] is not None]  # type: ignore[arg-type]
    dropped = 0
    gaps = 0
    for result in results:
        ids = result["ids"]
        assert isinstance(ids, list)
        dropped += stored_count(data_dir / "data", str(result["session_id"])) - len(ids)
        gaps += ids != list(range(1, len(ids) + 1))
    rows = [
        ("sessions (concurrent)", f"{args.sessions} {args.mode}", ""),
        ("wall time, s", f"{wall:.1f}", ""),
        ("first event p50, ms", f"{statistics.median(firsts) * 1000:.0f}", ""),
        ("first event p95, ms", f"{percentile(firsts, 0.95) * 1000:.0f}", "< 300"),
        ("dropped events", str(dropped), "0"),
        ("streams with a gap or repeat", str(gaps), "0"),
        ("server RSS growth, MB", f"{after - before:.0f} ({before:.0f} -> {after:.0f})", "< 200"),
        ("/healthz p50, ms", f"{statistics.median(health) * 1000:.1f}", ""),
        ("/healthz p99, ms", f"{percentile(health, 0.99) * 1000:.1f}", "< 20"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)} | value | target")
    print(f"{'-' * width}-+-------+-------")
    for name, value, target in rows:
        print(f"{name.ljust(width)} | {value} | {target}")
    print(json.dumps({"sessions": args.sessions, "mode": args.mode}), file=sys.stderr)


if __name__ == "__main__":
    main()
