"""`deepresearch sessions`: saved sessions with their status, newest first; `--delete ID`
removes one (its checkpoints, event log, reports and audits, and its row)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from engine.config import load_settings

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.protocol import SessionInfo

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sessions",
        help="list saved research sessions, or delete one",
        description="List saved sessions (newest first) with their status; resume one with "
        "deepresearch run --resume SESSION_ID. --delete removes a session: its checkpoints, "
        "event log, reports and audits (exported copies stay where they were written).",
    )
    parser.add_argument(
        "--delete",
        metavar="SESSION",
        help="delete a saved session (a session id or a unique prefix of one); asks first",
    )
    parser.add_argument(
        "--yes", "-y", action="store_true", help="with --delete: delete without asking"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.sessions import list_sessions

    settings = load_settings()
    if getattr(args, "delete", None) is not None:
        return _delete(settings, args.delete, assume_yes=bool(getattr(args, "yes", False)))
    sessions = list_sessions(settings)
    try:
        _print_sessions(settings, sessions)
    except BrokenPipeError:
        # The reader stopped early (`deepresearch sessions | head`): that is not an error.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


def _delete(settings: Settings, wanted: str, *, assume_yes: bool) -> int:
    from engine.commands.audit import AuditError, resolve_session
    from engine.sessions import SessionNotDeleted, delete_session, list_sessions
    from engine.terminal_text import one_line

    try:
        info = resolve_session(list_sessions(settings), wanted)
    except AuditError as exc:
        print(f"deepresearch sessions: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not assume_yes:
        if not sys.stdin.isatty():
            print(
                f"deepresearch sessions: not deleting {info.session_id} without asking; "
                "add --yes to delete without a terminal to ask on",
                file=sys.stderr,
            )
            return EXIT_USAGE
        question = one_line(info.question)
        if len(question) > 70:
            question = question[:69] + "…"
        prompt = (
            f"Delete session {info.session_id} ({info.status}): {question}\n"
            "Its checkpoints, event log, reports and audits go; this cannot be undone. "
            "Delete? [y/N] "
        )
        try:
            answer = input(prompt)
        except EOFError:
            answer = ""
        if answer.strip().lower() not in {"y", "yes"}:
            print("not deleted")
            return EXIT_OK
    try:
        deleted = delete_session(settings, info.session_id)
    except SessionNotDeleted as exc:
        print(f"deepresearch sessions: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    files = len(deleted.files)
    stored = f"{files} file{'s' if files != 1 else ''}"
    if deleted.checkpoints:
        stored += " and its checkpoints"
    print(f"deleted session {deleted.session_id} ({stored})")
    return EXIT_OK


def _print_sessions(settings: Settings, sessions: list[SessionInfo]) -> None:
    from engine.progress_text import follow_up_words, format_usd
    from engine.session_questions import questions_of
    from engine.sessions_log import load_events, spend_of
    from engine.terminal_text import one_line

    if not sessions:
        print("no saved sessions")
        return
    print(f"{'SESSION':<24} {'STATUS':<22} {'UPDATED':<20} {'TOKENS':>8} {'COST':>8} QUESTION")
    for info in sessions:
        events = load_events(settings, info.session_id) or []
        # A session is named by its first question; the index row keeps only the latest.
        asked = questions_of(events) or [info.question]
        # Rows written before questions were cleaned on the way in may still hold controls.
        question = one_line(asked[0])
        more = follow_up_words(len(asked) - 1)
        room = 70 - (len(more) + 3 if more else 0)
        if len(question) > room:
            question = question[: room - 1] + "…"
        if more:
            question += f" ({more})"
        updated = info.updated_at.replace("T", " ")[:19]
        spend = spend_of(events)
        tokens, cost = f"{spend.tokens:,}", format_usd(spend.cost_usd)
        print(
            f"{info.session_id:<24} {info.status:<22} {updated:<20} {tokens:>8} {cost:>8} "
            f"{question}",
            flush=True,
        )
        if info.status == "interrupted":
            hint = f"interrupted — resume with: deepresearch run --resume {info.session_id}"
            print(f"{'':<24} {hint}", flush=True)
