"""Research sessions against the real model server the settings configure: time, calls, tokens.

    uv run python bench/real_model.py [--mode quick|deep|both] [--questions N]
                                      [--questions-file FILE] [--keep DIR]
                                      [--run-timeout SECONDS] [--quiet]

Reads the settings as `deepresearch` does (environment, then `.env`) and refuses (exit 2)
when they select the offline model or the endpoint does not answer `GET /models`. Each
session runs headless in-process through the same driver as `deepresearch run --yes`
(`engine.commands.run.run_headless`): plans are approved and a clarifying question is
answered by proceeding on the most likely reading. Every session gets a fresh temporary
DATA_DIR; two things are carried into it so the runs measure research, not set-up: the
local search index (built once, before any timing) and the endpoint's model profile
(`model_profiles.json`, from the configured DATA_DIR or from the previous run, so the
capability probes are paid at most once; the first row says when it paid them).

Quick mode asks up to 10 factual questions whose answers are on pages of the bundled
corpus (docs/samples). On another corpus, point DOCUMENTS_PATH at it and pass
`--questions-file` (one question per line; blank lines and lines starting with # are
skipped); with `--mode deep` the file's questions are asked as deep runs. `--keep DIR` keeps
each run's report and audit, with its checkpoints in `data/` (for `bench/regrade.py`).
Deep mode asks one broader question with small caps (below; a
variable already set in the environment wins). The plan holds 3 to 6 tracks and is approved
as proposed; MAX_RESEARCHER_ITERATIONS=3 researches three of them, at most two at once.

Columns: model calls and prompt/completion tokens are summed from `UsageUpdated` events
(the engine's own metering); `requests` counts the chat requests actually sent to the
server (every attempt of every call, structured output and capability probes included),
so a gap between the two is work the metering does not see. "claims supported/removed" is
the report's cited sentences, how many their sources support, and how many grounding took
out (GROUNDING=strict); "kept %" is the share of them kept as supported (a sentence grounding
only marks is not). "tracks" (deep) is
the approved plan's tracks whose section keeps a supported sentence, then those whose section
says why it has none (not researched, nothing found), of all the approved tracks. tokens/s is
completion tokens over the whole wall time (prompt processing, tools and retries included), not the
server's generation speed. Progress lines go to stderr as `deepresearch run` prints them.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.config import ROLES, Settings, SettingsError, load_settings  # noqa: E402

EXIT_REFUSED = 2
GET_MODELS_TIMEOUT_SECONDS = 5.0

QUICK_QUESTIONS: tuple[str, ...] = (
    "What is the default maxsize of functools.lru_cache?",
    "What does asyncio.wait_for do when the timeout occurs?",
    "What does json.dumps guarantee about its output when ensure_ascii is true?",
    "At which level is the root logger created in Python's logging module?",
    "What does collections.Counter.most_common return when n is omitted?",
    "Which exception is raised when assigning to a field of a frozen dataclass?",
    "What must be true of the input to itertools.groupby for equal keys to be grouped together?",
    "What does asyncio.Queue.join() block until?",
    "Which two placeholder styles does sqlite3 accept for SQL parameters?",
    "Which command does the Python tutorial use to create a virtual environment with venv?",
)
DEEP_QUESTION = (
    "How do asyncio tasks get cancelled, and how do asyncio.wait_for and asyncio.timeout "
    "use cancellation?"
)
DEEP_CAPS: dict[str, str] = {
    "MAX_RESEARCHER_ITERATIONS": "3",
    "MAX_CONCURRENT_RESEARCH_UNITS": "2",
    "MAX_REACT_TOOL_CALLS": "6",
    "MIN_EVIDENCE_RECORDS": "2",
    "MIN_SOURCE_DOMAINS": "1",
}
EXIT_REASONS = {
    0: "report written",
    1: "run failed",
    2: "bad arguments",
    3: "needs input",
    4: "report unverified",
}


@dataclass
class Row:
    mode: str
    question: str
    wall_seconds: float
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    requests: int
    kept: int | None
    removed: int | None
    claims: int | None
    claims_supported: int | None
    claims_removed: int | None
    verification: str
    completed: bool
    exit_reason: str
    tracks: tuple[int, int, int] | None = None  # (with a supported sentence, said why, all)
    claims_supported_kept: int = 0

    @property
    def kept_share(self) -> float | None:
        """The report's cited sentences kept as supported (a marked one is not)."""
        if not self.claims or self.claims_supported is None:
            return None
        return self.claims_supported_kept / self.claims

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.wall_seconds if self.wall_seconds > 0 else 0.0


# ---- refusing early -------------------------------------------------------------------


def _refuse(message: str) -> NoReturn:
    print(f"bench/real_model.py: {message}", file=sys.stderr)
    raise SystemExit(EXIT_REFUSED)


def _check_endpoints(settings: Settings) -> list[str]:
    """The host:port of every configured endpoint, each answering GET /models (else exit 2)."""
    import httpx

    from engine.models.compat.profile import endpoint_label

    if settings.offline:
        _refuse(
            "the settings select the offline model (no ORCHESTRATOR_BASE_URL or OPENAI_API_KEY, "
            "or ORCHESTRATOR_MODEL=offline); this benchmark measures a real model server. "
            "See docs/local-models.md."
        )
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    labels: list[str] = []
    bases = {
        settings.role_model(role).base_url or ""
        for role in ROLES
        if not settings.role_model(role).offline
    }
    for base in sorted(bases):
        url = (base or "https://api.openai.com/v1") + "/models"
        label = endpoint_label(base or None)
        try:
            response = httpx.get(url, headers=headers, timeout=GET_MODELS_TIMEOUT_SECONDS)
        except httpx.HTTPError as exc:
            _refuse(f"the endpoint {label} does not answer GET /models ({type(exc).__name__})")
        if response.status_code >= 400:
            _refuse(f"the endpoint {label} answers GET /models with HTTP {response.status_code}")
        labels.append(label)
    return labels


# ---- counting what reaches the server ---------------------------------------------------


@contextmanager
def _counting_requests() -> Iterator[list[int]]:
    """Count every streamed chat request the engine sends, whatever the metering sees."""
    from engine.models.compat.transport import Transport

    counter = [0]
    original = Transport._stream

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        counter[0] += 1
        return await original(self, *args, **kwargs)

    Transport._stream = counted  # type: ignore[method-assign]
    try:
        yield counter
    finally:
        Transport._stream = original  # type: ignore[method-assign]


# ---- one session ------------------------------------------------------------------------


def _session_settings(data_dir: Path, overrides: dict[str, str]) -> Settings:
    environ = {**overrides, **os.environ, "DATA_DIR": str(data_dir)}
    return load_settings(environ)


async def _one_session(
    mode: str,
    question: str,
    data_dir: Path,
    overrides: dict[str, str],
    run_timeout: float,
    quiet: bool,
) -> Row:
    from engine.commands.run import run_headless
    from engine.events import (
        PlanApproved,
        ReportReady,
        RunFailed,
        RunFinished,
        UsageUpdated,
        parse_event,
    )

    settings = _session_settings(data_dir, overrides)
    events_path = data_dir / "events.jsonl"
    args = argparse.Namespace(
        question=question,
        yes=True,
        answer=None,
        plan=None,
        out=None,
        events=events_path,
        append=False,
        resume=None,
        mode=mode,
    )
    stderr = io.StringIO() if quiet else sys.stderr
    code: int | None = None
    reason = ""
    started = time.perf_counter()
    with _counting_requests() as requests:
        try:
            code = await asyncio.wait_for(
                run_headless(settings, args, stderr=stderr, stdout=io.StringIO()),
                timeout=run_timeout or None,
            )
        except TimeoutError:
            reason = f"stopped after {run_timeout:g} s (--run-timeout)"
        except Exception as exc:  # a benchmark row, not a crash of the whole table
            reason = f"raised {type(exc).__name__}"
    wall = time.perf_counter() - started

    events: list[Any] = []
    if events_path.exists():
        for line in events_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                events.append(parse_event(line))
    usage = [event for event in events if isinstance(event, UsageUpdated)]
    reports = [event for event in events if isinstance(event, ReportReady)]
    failures = [event for event in events if isinstance(event, RunFailed)]
    finished = [event for event in events if isinstance(event, RunFinished)]
    report = reports[-1] if reports else None
    approved = [event for event in events if isinstance(event, PlanApproved)]
    tracks = None
    if report is not None and approved and mode == "deep":
        sections = [track.section for track in approved[-1].plan.tracks]
        supported = [
            claim.text
            for claim in report.claims
            if claim.status == "supported" and claim.action == "kept"
        ]
        tracks = track_coverage(report.report, sections, supported)
    if not reason and code is not None:
        reason = EXIT_REASONS.get(code, f"exit {code}")
        if code == 1 and failures:
            reason = f"run failed: {failures[-1].error}"
    return Row(
        mode=mode,
        question=question,
        wall_seconds=wall,
        model_calls=len(usage),
        prompt_tokens=sum(event.input_tokens for event in usage),
        completion_tokens=sum(event.output_tokens for event in usage),
        requests=requests[0],
        kept=len(report.kept_citations) if report else None,
        removed=len(report.removed_citations) if report else None,
        claims=len(report.claims) if report else None,
        claims_supported=(
            sum(1 for claim in report.claims if claim.status == "supported") if report else None
        ),
        claims_removed=(
            sum(1 for claim in report.claims if claim.action == "removed") if report else None
        ),
        verification=report.verification_status if report else "-",
        completed=any(event.status == "completed" for event in finished),
        exit_reason=reason,
        tracks=tracks,
        claims_supported_kept=(
            sum(1 for c in report.claims if c.status == "supported" and c.action == "kept")
            if report
            else 0
        ),
    )


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


def track_coverage(report: str, sections: list[str], supported: list[str]) -> tuple[int, int, int]:
    """How many of the tracks' sections keep a supported sentence, how many say why they have
    none (the report's "This track was not researched" / "found nothing" line), of all."""
    bodies: dict[str, str] = {}
    heading = ""
    for line in report.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            bodies.setdefault(heading, "")
        elif heading:
            bodies[heading] += line + "\n"
    covered = said_why = 0
    for section in sections:
        body = _flat(bodies.get(section.strip(), ""))
        if any(_flat(text)[:60] in body for text in supported if text.strip()):
            covered += 1
        elif (
            "this track was not researched" in body
            or "this track found nothing" in body
            or ("found nothing citable" in body)
        ):
            said_why += 1
    return covered, said_why, len(sections)


# ---- the table ----------------------------------------------------------------------------

HEADER = (
    "mode",
    "question",
    "wall s",
    "calls",
    "prompt tok",
    "compl tok",
    "tok/s",
    "requests",
    "cites kept/removed",
    "claims supported/removed",
    "kept %",
    "tracks",
    "verification",
    "completed",
    "exit reason",
)
QUESTION_WIDTH = 48


def _cells(row: Row) -> tuple[str, ...]:
    question = row.question
    if len(question) > QUESTION_WIDTH:
        question = question[: QUESTION_WIDTH - 1] + "…"
    cites = "-" if row.kept is None else f"{row.kept} / {row.removed}"
    claims = (
        "-"
        if row.claims is None
        else f"{row.claims}: {row.claims_supported} / {row.claims_removed}"
    )
    return (
        row.mode,
        question,
        f"{row.wall_seconds:.1f}",
        str(row.model_calls),
        str(row.prompt_tokens),
        str(row.completion_tokens),
        f"{row.tokens_per_second:.1f}",
        str(row.requests),
        cites,
        claims,
        "-" if row.kept_share is None else f"{100 * row.kept_share:.0f}",
        "-" if row.tracks is None else "{} + {} / {}".format(*row.tracks),
        row.verification,
        "yes" if row.completed else "no",
        row.exit_reason,
    )


def render_table(rows: list[Row]) -> str:
    table = [HEADER, *(_cells(row) for row in rows)]
    widths = [max(len(line[column]) for line in table) for column in range(len(HEADER))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(table[0], widths, strict=True))]
    lines.append("-+-".join("-" * width for width in widths))
    for line in table[1:]:
        lines.append(
            " | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        )
    return "\n".join(line.rstrip() for line in lines)


# ---- main -----------------------------------------------------------------------------------


def _keep_checkpoints(run_dir: Path, into: Path) -> None:
    """The run's session index and checkpoints, so `bench/regrade.py` can read its report's
    state back (SQLite files with their write-ahead logs)."""
    from engine.models.compat.profile import PROFILE_CACHE_FILE

    into.mkdir(parents=True, exist_ok=True)
    if (run_dir / PROFILE_CACHE_FILE).is_file():  # so reading them back probes nothing
        shutil.copy2(run_dir / PROFILE_CACHE_FILE, into / PROFILE_CACHE_FILE)
    for path in run_dir.glob("*.sqlite*"):
        if not path.name.startswith("index."):
            shutil.copy2(path, into / path.name)


def _build_index(settings: Settings, data_dir: Path) -> Path | None:
    """The local search index, built once into `data_dir` (None when search is not local)."""
    if settings.resolved_search_provider != "local":
        return None
    from engine.tools.local_index import LocalIndex

    path = data_dir / "index.sqlite"
    LocalIndex(path, settings.resolved_documents_path).refresh()
    return path


def _seed(run_dir: Path, index: Path | None, profiles: Path) -> None:
    from engine.models.compat.profile import PROFILE_CACHE_FILE

    run_dir.mkdir(parents=True)
    if index is not None:
        shutil.copy2(index, run_dir / "index.sqlite")
    if profiles.is_file():
        shutil.copy2(profiles, run_dir / PROFILE_CACHE_FILE)


def _read_questions(parser: argparse.ArgumentParser, path: Path) -> tuple[str, ...]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        parser.error(f"--questions-file {path}: {exc}")
    questions = tuple(
        line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
    )
    if not questions:
        parser.error(f"--questions-file {path}: no question in it")
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", choices=("quick", "deep", "both"), default="both")
    parser.add_argument(
        "--questions",
        type=int,
        default=len(QUICK_QUESTIONS),
        help=f"how many quick questions to ask (1 to {len(QUICK_QUESTIONS)})",
    )
    parser.add_argument(
        "--run-timeout",
        type=float,
        default=0.0,
        help="stop a session after this many seconds (0: no limit)",
    )
    parser.add_argument(
        "--questions-file",
        type=Path,
        help="ask these quick questions (one per line) instead of the built-in ones",
    )
    parser.add_argument(
        "--keep", type=Path, help="copy each run's report, audit and events into this folder"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args()
    questions = QUICK_QUESTIONS
    if args.questions_file is not None:
        questions = _read_questions(parser, args.questions_file)
    elif not 1 <= args.questions <= len(QUICK_QUESTIONS):
        parser.error(f"--questions must be from 1 to {len(QUICK_QUESTIONS)}")

    from engine.models.compat.profile import PROFILE_CACHE_FILE

    try:
        configured = load_settings()
    except SettingsError as exc:
        _refuse(str(exc))
    labels = _check_endpoints(configured)
    plan: list[tuple[str, str, dict[str, str]]] = []
    if args.mode in ("quick", "both"):
        asked = questions if args.questions_file is not None else questions[: args.questions]
        plan += [("quick", question, {}) for question in asked]
    if args.mode in ("deep", "both"):
        deep = questions if args.questions_file is not None else (DEEP_QUESTION,)
        plan += [("deep", question, DEEP_CAPS) for question in deep]

    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="deepresearch-bench-") as tmp:
        shared = Path(tmp) / "shared"
        shared.mkdir()
        index = _build_index(configured, shared)
        profiles = shared / PROFILE_CACHE_FILE
        known = configured.data_dir / PROFILE_CACHE_FILE
        if known.is_file():
            shutil.copy2(known, profiles)
        print(
            f"endpoint {', '.join(labels)}; model profile "
            f"{'from ' + str(known) if profiles.is_file() else 'probed during the first run'}",
            file=sys.stderr,
        )
        for number, (mode, question, caps) in enumerate(plan, start=1):
            run_dir = Path(tmp) / f"run{number}"
            _seed(run_dir, index, profiles)
            print(f"== {number}/{len(plan)} {mode}: {question}", file=sys.stderr, flush=True)
            row = asyncio.run(
                _one_session(mode, question, run_dir, caps, args.run_timeout, args.quiet)
            )
            rows.append(row)
            if args.keep is not None and (run_dir / "reports").is_dir():
                kept = args.keep / f"run{number}-{mode}"
                shutil.copytree(run_dir / "reports", kept)
                if (run_dir / "events.jsonl").is_file():
                    shutil.copy2(run_dir / "events.jsonl", kept / "events.jsonl")
                _keep_checkpoints(run_dir, kept / "data")
            if (run_dir / PROFILE_CACHE_FILE).is_file():
                shutil.copy2(run_dir / PROFILE_CACHE_FILE, profiles)
            print(render_table([row]).splitlines()[-1], file=sys.stderr, flush=True)
    if any(mode == "deep" for mode, _, _ in plan):
        caps_text = ", ".join(f"{name}={os.environ.get(name, v)}" for name, v in DEEP_CAPS.items())
        print(f"deep caps: {caps_text}")
    print(render_table(rows))


if __name__ == "__main__":
    main()
