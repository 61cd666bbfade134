"""`deepresearch sessions`: saved sessions with their status, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from engine.config import load_settings


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
    if not sessions:
        print("no saved sessions")
        return 0
    print(f"{'SESSION':<24} {'STATUS':<22} {'UPDATED':<20} QUESTION")
    for info in sessions:
        question = " ".join(info.question.split())
        if len(question) > 70:
            question = question[:69] + "…"
        updated = info.updated_at.replace("T", " ")[:19]
        print(f"{info.session_id:<24} {info.status:<22} {updated:<20} {question}")
    return 0
