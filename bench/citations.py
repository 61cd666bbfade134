"""Time citation verification and sanitization on reports of 10, 100 and 1,000 references.

Run: uv run python bench/citations.py [--runs N]
Target: verify + sanitize a 1,000-reference report in under 50 ms. "Both" is the engine's
pipeline (`check_report`): one parse of the report shared by the two passes.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry
from engine.citations.sanitize import sanitize_report
from engine.citations.verify import verify_citations

SIZES = (10, 100, 1_000)
TARGET_MS = {1_000: 50.0}


def build_case(references: int) -> tuple[str, SourceRegistry]:
    """A report citing `references` entries, with the mix of faults writers really produce.

    Of every 20 entries: 13 exact, 1 with tracking parameters, 1 truncated, 1 child path,
    1 document key, 1 invented URL, 1 shortener, 1 duplicate of an earlier entry.
    """
    registry = SourceRegistry()
    lines: list[str] = []
    body: list[str] = []
    for n in range(1, references + 1):
        url = f"https://site{n % 37}.example.org/articles/topic-{n}/report-{n}.html"
        registry.add_url(url, f"Report {n}")
        kind = n % 20
        if kind == 1:
            cited = url + "?utm_source=newsletter&ref=home"
        elif kind == 2:
            cited = url[:-8]
        elif kind == 3:
            cited = url.removesuffix(".html") + "/section-2"
            registry.add_url(url.removesuffix(".html"))
        elif kind == 4:
            registry.add_document(f"handbook-{n}.pdf, p.{n % 300}")
            cited = f"handbook-{n}.pdf p. {n % 300 + 1}"
        elif kind == 5:
            cited = f"https://invented.example.com/paper-{n}"
        elif kind == 6:
            cited = f"https://bit.ly/{n:x}"
        elif kind == 7 and n > 20:
            cited = lines[n - 21].split(": ", 1)[1]
        else:
            cited = url
        lines.append(f"[{n}] Report {n}: {cited}")
        other = (n * 7) % references + 1
        body.append(f"Finding number {n} is supported by evidence [{n}, {other}].")
    paragraphs = "\n\n".join(" ".join(body[i : i + 5]) for i in range(0, len(body), 5))
    report = f"# Benchmark report\n\n{paragraphs}\n\n## Sources\n" + "\n".join(lines) + "\n"
    return report, registry


def timed(function: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples), statistics.median(samples)


def machine_speed_ms() -> float:
    """Time of a fixed pure-Python loop, to compare figures across machines.

    About 12-15 ms on a current desktop CPU with CPython 3.11; scale the table by it.
    """
    best, _ = timed(lambda: sum(range(1_000_000)), 5)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    print(f"calibration: sum(range(1_000_000)) takes {machine_speed_ms():.1f} ms here\n")

    header = (
        f"{'references':>10} {'report KB':>9} {'verify min/med ms':>18} "
        f"{'sanitize min/med ms':>20} {'both min/med ms':>16} {'kept':>5} {'removed':>7} "
        f"{'target':>8}"
    )
    print(header)
    print("-" * len(header))
    for size in SIZES:
        report, registry = build_case(size)
        verification = verify_citations(report, registry)
        verified = verification.verified_report

        def both(report: str = report, registry: SourceRegistry = registry) -> None:
            check_report(report, registry)

        v_min, v_med = timed(lambda r=report, g=registry: verify_citations(r, g), runs)
        s_min, s_med = timed(lambda v=verified: sanitize_report(v), runs)
        b_min, b_med = timed(both, runs)
        target = TARGET_MS.get(size)
        verdict = "" if target is None else ("ok" if b_med < target else "MISSED")
        print(
            f"{size:>10} {len(report) / 1024:>9.1f} {v_min:>8.2f} / {v_med:<7.2f} "
            f"{s_min:>9.2f} / {s_med:<8.2f} {b_min:>7.2f} / {b_med:<6.2f} "
            f"{len(verification.valid_citations):>5} {len(verification.removed_citations):>7} "
            f"{verdict:>8}"
        )


if __name__ == "__main__":
    main()
