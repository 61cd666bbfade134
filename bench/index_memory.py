"""Peak memory of `deepresearch index` on a folder with one huge text file and many small ones.

Builds a temporary folder (one 200 MB .txt, many small .md files, a binary file named .txt)
and runs the real command, `deepresearch index FOLDER`, in a child process with its own empty
data directory, sampling the resident memory of that process and of every process it starts
(parser workers) every 20 ms. It does this twice: with the default INDEX_MAX_FILE_BYTES (the
huge file is skipped, with a warning) and with the cap raised above the file (it is streamed
into the index). Target: peak < 300 MB in both. The figures are the sum over the process tree
at its highest, so they are comparable with what `ps` or a container limit would see.

    uv run python bench/index_memory.py [--big-mb 200] [--small 2000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARAGRAPH = (
    "Asyncio tasks are cancelled by calling their cancel method, which raises CancelledError "
    "inside the wrapped coroutine at its next await; the task may catch it to clean up. "
)
TARGET_MB = 300


def build_folder(folder: Path, big_mb: int, small: int) -> None:
    folder.mkdir(parents=True)
    block = (PARAGRAPH * 5 + "\n\n") * 100
    with (folder / "huge.txt").open("w", encoding="utf-8") as handle:
        written = 0
        number = 0
        while written < big_mb * 1_000_000:
            handle.write(f"Part {number}. {block}")
            written += len(block) + 12
            number += 1
    for number in range(small):
        sub = folder / f"notes-{number // 200}"
        sub.mkdir(exist_ok=True)
        text = f"# Note {number}\n\n" + PARAGRAPH * (3 + number % 7) + f"\n\nMarker {number}.\n"
        (sub / f"note-{number}.md").write_text(text, encoding="utf-8")
    (folder / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 10_000)


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    pids, frontier = [pid], [pid]
    while frontier:
        parent = frontier.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            pids.append(child)
            frontier.append(child)
    return pids


def measure(folder: Path, work: Path, max_file_bytes: int | None) -> tuple[float, float, str]:
    """Run `deepresearch index` once: (peak MB of the process tree, seconds, its stdout)."""
    env = {
        **os.environ,
        "DATA_DIR": str(work / f"data-{max_file_bytes}"),
        "DEEPRESEARCH_ENV_FILE": "",
    }
    if max_file_bytes is not None:
        env["INDEX_MAX_FILE_BYTES"] = str(max_file_bytes)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "index", str(folder)],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak_kb = 0
    while process.poll() is None:
        peak_kb = max(peak_kb, sum(_rss_kb(pid) for pid in _tree(process.pid)))
        time.sleep(0.02)
    out, err = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"index failed ({process.returncode}):\n{err}")
    return peak_kb / 1024, time.perf_counter() - started, (out + err)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big-mb", type=int, default=200, help="size of the huge file")
    parser.add_argument("--small", type=int, default=2000, help="number of small files")
    args = parser.parse_args()
    if not Path("/proc/self/status").exists():
        raise SystemExit("this benchmark reads /proc: run it on Linux")
    with tempfile.TemporaryDirectory(prefix="index-memory-") as temp:
        work = Path(temp)
        folder = work / "docs"
        build_folder(folder, args.big_mb, args.small)
        rows = []
        for label, cap in (
            ("default cap: huge file skipped", None),
            ("cap raised: huge file streamed", (args.big_mb + 50) * 1_000_000),
        ):
            peak, seconds, output = measure(folder, work, cap)
            summary = next(line for line in output.splitlines() if line.startswith("indexed"))
            rows.append((label, peak, seconds, summary.split(";")[0]))
    print(f"index of 1 × {args.big_mb} MB .txt + {args.small} small .md + 1 binary .txt")
    print(f"{'case':<32} {'peak RSS':>10} {'time':>8}  result")
    for label, peak, seconds, summary in rows:
        print(f"{label:<32} {peak:>7.0f} MB {seconds:>6.1f} s  {summary}")
    worst = max(peak for _label, peak, _s, _summary in rows)
    verdict = "within" if worst < TARGET_MB else "OVER"
    print(f"target: peak < {TARGET_MB} MB — {verdict} ({worst:.0f} MB at worst)")
    return 0 if worst < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
