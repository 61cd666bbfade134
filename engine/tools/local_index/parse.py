"""Parsing the files of a refresh: in worker processes for a big batch, else in this process.

A file that cannot be parsed never aborts the index: it comes back with a warning naming it.
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from engine.terminal_text import shown_name
from engine.tools.documents import ParsedDocument, parse_file
from engine.tools.extract import ExtractionError

logger = logging.getLogger(__name__)

# Starting workers costs a second or two (each imports trafilatura): only worth it for big batches.
PARALLEL_MIN_BYTES = 1_500_000

Parser = Callable[[Path, str], ParsedDocument]


class Streamed:
    """Stands for a document indexed as it was read, never held whole."""


STREAMED = Streamed()
# (rel path, the document, STREAMED or None when skipped, the warning or None)
ParseOutcome = tuple[str, "ParsedDocument | Streamed | None", "str | None"]


def _parse_job(job: tuple[str, str], parser: Parser = parse_file) -> ParseOutcome:
    """Parse one file (runs in a worker process): (rel path, document or None, warning)."""
    path, rel = job
    try:
        return rel, parser(Path(path), rel), None
    except Exception as exc:  # a corrupt file must never abort the index: skip it, say why
        reason = str(exc) if isinstance(exc, ExtractionError) else type(exc).__name__
        return rel, None, f"skipped {shown_name(rel)}: {reason}"


def _can_spawn() -> bool:
    """Whether spawned workers can re-create `__main__` (not so for `python - < script`)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    return main_file is None or Path(main_file).is_file()


def parse_all(
    jobs: list[tuple[str, str]], total_bytes: int, *, workers: int, parser: Parser | None
) -> Iterator[ParseOutcome]:
    """Parse files (path, rel path) in order, in worker processes when there are enough.

    A custom `parser` (benchmarks, tests) always runs in this process.
    """
    parsed = 0
    if parser is not None:
        for job in jobs:
            yield _parse_job(job, parser)
        return
    parallel = workers > 1 and len(jobs) > 1 and total_bytes >= PARALLEL_MIN_BYTES
    if parallel and _can_spawn():
        try:
            context = multiprocessing.get_context("spawn")  # fork is unsafe with threads
            pool = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context)
            try:
                for outcome in pool.map(_parse_job, jobs):
                    parsed += 1
                    yield outcome
            finally:
                # A refresh stopped early (the app closing, a cancelled run) must not wait for
                # the whole batch: the files no worker has started are dropped.
                pool.shutdown(wait=True, cancel_futures=True)
            return
        except (OSError, ValueError, BrokenProcessPool) as exc:
            # ValueError: inside the app, Textual's stand-in stderr has no usable file
            # descriptor, and multiprocessing cannot start its resource tracker.
            logger.info(
                "worker processes unavailable (%s); parsing the rest in this process",
                type(exc).__name__,
            )
    for job in jobs[parsed:]:
        yield _parse_job(job)
