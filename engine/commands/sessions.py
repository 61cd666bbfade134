"""`deepresearch sessions`: saved sessions with their status, newest first."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from engine.config import load_settings

if TYPE_CHECKING:
    from engine.protocol import SessionInfo


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sessions",
        help="list saved research sessions",
        description="List saved sessions (newest first) with their status; resume one with "
        "deepresearch run --resume SESSION_ID.",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.sessions import list_sessions

    sessions = list_sessions(load_settings())
    try:
        _print_sessions(sessions)
    except BrokenPipeError:
        # The reader stopped early (`deepresearch sessions | head`): that is not an error.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


def _print_sessions(sessions: list[SessionInfo]) -> None:
    from engine.terminal_text import one_line

    if not sessions:
        print("no saved sessions")
        return
    print(f"{'SESSION':<24} {'STATUS':<22} {'UPDATED':<20} QUESTION")
    for info in sessions:
        # Rows written before questions were cleaned on the way in may still hold controls.
        question = one_line(info.question)
        if len(question) > 70:
            question = question[:69] + "…"
        updated = info.updated_at.replace("T", " ")[:19]
        print(f"{info.session_id:<24} {info.status:<22} {updated:<20} {question}", flush=True)
        if info.status == "interrupted":
            hint = f"interrupted — resume with: deepresearch run --resume {info.session_id}"
            print(f"{'':<24} {hint}", flush=True)
