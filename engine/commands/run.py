"""`deepresearch run "QUESTION"`: a research session without the app.

Progress goes to stderr, the report to `--out` or stdout, every event to `--events` as JSON
lines (a new file each run unless `--append`). `--resume ID "QUESTION"` asks a follow-up in a
finished session; the engine decides whether the topic shifted. A pause the flags cannot
answer (a clarifying question without `--answer`, a plan without `--yes` or `--plan`) ends
the run with exit code 3 and the session id to resume.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from engine.config import Settings, load_settings
from engine.markdown_file import markdown_file_text
from engine.preflight import documents_warning, require_working_search
from engine.progress_text import unit_title
from engine.protocol import PROCEED_ON_LIKELY_READING
from engine.terminal_text import TerminalSafeStream, one_line, terminal_safe

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NEEDS_INPUT = 3
EXIT_UNVERIFIED = 4
EXIT_PARTIAL = 5


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a research session headless and print the report",
        description="Run a research session without the app. Exit codes: 0 report written, "
        "1 run failed or cancelled, 2 bad arguments, 3 the session needs an answer "
        "(resume it with --resume SESSION_ID and --answer or --yes), 4 a report was written "
        "but none of it is backed by a retrieved source, 5 the budget was reached and the "
        "report is partial (continue it with --resume SESSION_ID and a higher --budget-tokens "
        "or --budget-usd). With --yes, a clarifying question is "
        "answered by proceeding on the most likely reading.",
    )
    parser.add_argument("question", nargs="?", help="the research question")
    parser.add_argument("--yes", action="store_true", help="approve the proposed plan")
    parser.add_argument("--answer", metavar="TEXT", help="answer to a clarifying question")
    parser.add_argument(
        "--plan", metavar="FILE", type=Path, help="approve this edited plan (JSON) instead"
    )
    parser.add_argument("--out", metavar="FILE", type=Path, help="write the report here")
    parser.add_argument(
        "--events",
        metavar="FILE.jsonl",
        type=Path,
        help="write every event as JSON lines (the file is replaced unless --append)",
    )
    parser.add_argument(
        "--append", action="store_true", help="add to the --events file instead of replacing it"
    )
    parser.add_argument(
        "--resume",
        metavar="SESSION_ID",
        help="continue a saved session; with a QUESTION, ask it as a follow-up of a finished one",
    )
    parser.add_argument("--mode", choices=("auto", "quick", "deep"), help="research mode")
    parser.add_argument(
        "--budget-tokens",
        metavar="N",
        type=_budget(int),
        help="cap this session at N tokens (default BUDGET_TOKENS; 0: no cap)",
    )
    parser.add_argument(
        "--budget-usd",
        metavar="N",
        type=_budget(float),
        help="cap this session at N US dollars (default BUDGET_USD; 0: no cap)",
    )
    parser.set_defaults(handler=run)


def _budget(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < 0:
            raise argparse.ArgumentTypeError("must be 0 or more")
        return value

    return parse


def run(args: argparse.Namespace) -> int:
    if args.question is None and not args.resume:
        print("deepresearch run: give a QUESTION or --resume SESSION_ID", file=sys.stderr)
        return EXIT_USAGE
    if args.question is not None:
        # Control sequences are dropped here, so the report heading, the sessions list and
        # every line printed later see only the words the person typed.
        args.question = one_line(args.question)
        if not args.question:
            print("deepresearch run: the question is empty", file=sys.stderr)
            return EXIT_USAGE
    if args.answer is not None:
        args.answer = one_line(args.answer)
    edited_plan: dict[str, Any] | None = None
    if args.plan is not None:
        try:
            edited_plan = _read_plan(args.plan)
        except (OSError, ValueError) as exc:
            print(f"deepresearch run: {exc}", file=sys.stderr)
            return EXIT_USAGE
    settings = load_settings()
    require_working_search(settings)
    if not args.resume:
        warning = documents_warning(settings)
        if warning:
            print(f"warning: {warning}", file=sys.stderr)
    return asyncio.run(run_headless(settings, args, edited_plan=edited_plan))


def _not_ready_for_follow_up(session_id: str, stage: str) -> str:
    if stage == "new":
        return (
            f"deepresearch run: no saved session {session_id!r}; `deepresearch sessions` lists them"
        )
    waiting = "waits for an answer or a plan review" if stage == "paused" else "did not finish"
    return (
        f"deepresearch run: session {session_id} {waiting}; finish it first with "
        f"`deepresearch run --resume {session_id} --yes`, then ask the follow-up"
    )


def _read_plan(path: Path) -> dict[str, Any]:
    from engine.schemas import ResearchPlan

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"--plan {path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return ResearchPlan.model_validate(data).model_dump(mode="json")
    except ValidationError as exc:
        from engine.nodes.scope import describe_validation_error

        raise ValueError(f"--plan {path}: {describe_validation_error(exc)}") from None


async def run_headless(
    settings: Settings,
    args: argparse.Namespace,
    *,
    edited_plan: dict[str, Any] | None = None,
    deps: Any = None,
    stderr: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """Drive one session to its end or to a pause the arguments cannot answer."""
    from engine.run.runner import open_session

    # Reports, plans and progress carry text from documents and models: print it defanged.
    err = TerminalSafeStream(stderr or sys.stderr)
    out = TerminalSafeStream(stdout or sys.stdout)
    # Where the run will write is checked before it spends anything: a path that cannot be
    # written is found now, not after the research.
    for flag, path in (("--out", args.out), ("--events", args.events)):
        problem = unwritable(path) if path is not None else None
        if problem:
            print(f"deepresearch run: {flag} {path}: {problem}", file=err)
            return EXIT_USAGE
    try:
        events_file = (
            args.events.open("a" if args.append else "w", encoding="utf-8") if args.events else None
        )
    except OSError as exc:
        print(f"deepresearch run: --events {args.events}: {_reason(exc)}", file=err)
        return EXIT_USAGE
    try:
        async with open_session(settings, args.resume, deps=deps) as session:
            session.caps = caps_for(settings, args)
            headless = _Headless(args, session, err, out, events_file, args.answer, edited_plan)
            return await headless.drive(settings)
    finally:
        if events_file is not None:
            events_file.close()


def unwritable(path: Path) -> str | None:
    """Why a file cannot be written at `path`, in a few words; None when it can."""
    if path.is_dir():
        return "is a folder; name a file in it"
    if path.exists():
        return None if os.access(path, os.W_OK) else "cannot be written (permission denied)"
    folder = path.parent
    if not folder.exists():
        return f"the folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} cannot be written (permission denied)"
    return None


def _reason(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


# What one event leads to: the next leg's stream, an exit code now, or reading on (None).
_Step = AsyncIterator[Any] | int | None


@dataclass
class _Headless:
    """One headless session: what the flags still answer, and what the run has come to."""

    args: argparse.Namespace
    session: Any
    err: TerminalSafeStream
    out: TerminalSafeStream
    events_file: IO[str] | None
    answer: str | None
    plan: dict[str, Any] | None
    code: int = EXIT_FAILED
    unverified: bool = False
    out_failed: bool = False

    async def drive(self, settings: Settings) -> int:
        """Read leg after leg until the run ends or pauses for what the flags cannot answer."""
        stream = await self._first_leg(settings)
        while not isinstance(stream, int):
            next_stream: AsyncIterator[Any] | None = None
            async for event in stream:
                step = self.on_event(event)
                if isinstance(step, int):
                    return step
                if step is not None:
                    next_stream = step
                    break
            if next_stream is None:
                return self.code
            stream = next_stream
        return stream

    async def _first_leg(self, settings: Settings) -> AsyncIterator[Any] | int:
        args, session = self.args, self.session
        follow_up = bool(args.resume and args.question)
        if follow_up:
            stage = await session.stage()
            if stage != "finished":
                print(_not_ready_for_follow_up(session.session_id, stage), file=self.err)
                return EXIT_USAGE
        if args.resume and not follow_up:
            return session.resume()
        return session.start(args.question, mode=args.mode or settings.research_mode)

    def on_event(self, event: Any) -> _Step:
        if self.events_file is not None:
            from engine.events import event_to_json

            self.events_file.write(event_to_json(event) + "\n")
            self.events_file.flush()
        line = progress_line(event)
        if line:
            print(line, file=self.err, flush=True)
        handler = {
            "clarification_requested": self._clarification,
            "plan_proposed": self._plan_proposed,
            "report_ready": self._report,
            "run_failed": self._failed,
            "run_finished": self._finished,
        }.get(event.type)
        return handler(event) if handler is not None else None

    def _clarification(self, event: Any) -> _Step:
        if self.answer is None and self.args.yes:
            print(
                "  clarification skipped (--yes): proceeding on the most likely reading",
                file=self.err,
            )
            self.answer = PROCEED_ON_LIKELY_READING
        if self.answer is None:
            print(
                f"clarification needed: {event.question}\n"
                f"answer it with: deepresearch run --resume {self.session.session_id}"
                ' --answer "..."',
                file=self.err,
            )
            print(self.session.session_id, file=self.out)
            return EXIT_NEEDS_INPUT
        answer, self.answer = self.answer, None
        return self.session.answer_clarification(answer)

    def _plan_proposed(self, event: Any) -> _Step:
        from engine.schemas import PlanDecision, ResearchPlan

        if event.rejected_edit_reason and self.plan is None:
            print(f"edited plan refused: {event.rejected_edit_reason}", file=self.err)
            return EXIT_USAGE
        if self.plan is not None:
            decision = PlanDecision(action="edit", plan=ResearchPlan.model_validate(self.plan))
            self.plan = None
        elif self.args.yes:
            decision = PlanDecision(action="approve")
        else:
            print(render_plan(event.plan), file=self.err)
            print(
                f"approve it with: deepresearch run --resume {self.session.session_id} --yes",
                file=self.err,
            )
            print(self.session.session_id, file=self.out)
            return EXIT_NEEDS_INPUT
        return self.session.review_plan(decision)

    def _report(self, event: Any) -> _Step:
        if self.args.out:
            try:
                text = markdown_file_text(terminal_safe(event.report))
                self.args.out.write_text(text, encoding="utf-8")
            except OSError as exc:
                # The run goes on to its end (the report is saved in the data folder).
                self.out_failed = True
                print(f"error: --out {self.args.out}: {_reason(exc)}", file=self.err)
            else:
                print(f"report written to {self.args.out}", file=self.err)
        else:
            # As the saved file has it: stdout is as often a file as a terminal.
            self.out.write(markdown_file_text(event.report))
            self.out.flush()
        if event.report_path:
            print(f"report saved to {event.report_path}", file=self.err)
        if event.verification_status != "verified":
            self.unverified = True
            reason = event.verification_reason or "unverified"
            print(
                f"warning: the report is not backed by retrieved sources "
                f"({reason}); exit code {EXIT_UNVERIFIED}",
                file=self.err,
            )
        return None

    def _failed(self, event: Any) -> _Step:
        session_id = self.session.session_id
        hint = f" (resume: deepresearch run --resume {session_id})" if event.resumable else ""
        print(f"run failed: {event.error}{hint}", file=self.err)
        return EXIT_FAILED

    def _finished(self, event: Any) -> _Step:
        self.code = {"completed": EXIT_OK, "partial": EXIT_PARTIAL}.get(event.status, EXIT_FAILED)
        if self.code == EXIT_OK and self.unverified:
            self.code = EXIT_UNVERIFIED
        if self.out_failed:
            self.code = EXIT_FAILED
        return None


def caps_for(settings: Settings, args: argparse.Namespace) -> Any:
    """The session's caps: the settings', each replaced by its flag when one is given."""
    from engine.budget import Caps

    tokens = getattr(args, "budget_tokens", None)
    usd = getattr(args, "budget_usd", None)
    return Caps(
        tokens=settings.budget_tokens if tokens is None else tokens,
        usd=settings.budget_usd if usd is None else usd,
    )


def render_plan(plan: Any) -> str:
    lines = ["proposed plan:", f"  scope: {plan.scope}"]
    for number, track in enumerate(plan.tracks, start=1):
        lines.append(f"  {number}. {track.title} → {track.section}")
        lines.append(f"     queries: {'; '.join(track.queries)}")
    return "\n".join(lines)


def progress_line(event: Any) -> str | None:
    """One short stderr line for the events a person follows; None for the rest."""
    describe = _PROGRESS_LINES.get(event.type)
    return describe(event) if describe is not None else None


def _session_line(event: Any) -> str:
    resumed = " (resumed)" if event.resumed else ""
    mode = " offline" if event.offline else ""
    return f"session {event.session_id}{resumed}{mode}"


def _phase_line(event: Any) -> str:
    return f"[{event.phase}]" + (f" {event.detail}" if event.detail else "")


def _route_line(event: Any) -> str:
    return f"route: {event.mode} ({event.reason})" if event.reason else f"route: {event.mode}"


def _unit_line(event: Any) -> str:
    unit = event.unit
    if unit.status == "running":
        return f"  {unit.id} running: {unit_title(unit.topic)}"
    detail = unit.failure_reason or f"{unit.evidence_count} evidence"
    duration = f", {unit.duration_seconds:.1f}s" if unit.duration_seconds is not None else ""
    return f"  {unit.id} {unit.status} ({detail}{duration})"


def _model_progress_line(event: Any) -> str | None:
    from engine.progress_text import describe_model_call

    text = describe_model_call(event)
    return f"  {text}" if text else None


def _review_line(event: Any) -> str:
    from engine.progress_text import describe_review

    return f"  {describe_review(event)}"


def _budget_line(event: Any) -> str:
    return f"  {event.detail}"


def _switch_line(event: Any) -> str:
    return (
        f"  {event.role} model {event.from_model} at {event.from_endpoint} {event.reason}; "
        f"switching to {event.to_model} at {event.to_endpoint}"
    )


def _finished_line(event: Any) -> str | None:
    return "  partial report: the budget was reached" if event.status == "partial" else None


def _gate_line(event: Any) -> str | None:
    if event.quality_gate_status == "none":
        return None
    reason = f": {event.quality_gate_reason}" if event.quality_gate_reason else ""
    return f"  quality gate {event.quality_gate_status}{reason}"


# The events a person running a session follows, by type, and the line each makes.
_PROGRESS_LINES: dict[str, Callable[[Any], str | None]] = {
    "session_started": _session_line,
    "phase_changed": _phase_line,
    "route_decided": _route_line,
    "research_unit_updated": _unit_line,
    "model_call_progress": _model_progress_line,
    "report_reviewed": _review_line,
    "budget_reached": _budget_line,
    "model_switched": _switch_line,
    "run_finished": _finished_line,
    "runtime_progress": _gate_line,
}
