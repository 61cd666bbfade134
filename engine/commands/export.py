"""`deepresearch export SESSION --format md|html|pdf|docx [--out PATH]`: a saved report as a
file to hand on, with numbered sources and the verification audit as an appendix."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from engine.config import load_settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    from engine.export import FORMATS

    parser = subparsers.add_parser(
        "export",
        help="write a session's report as Markdown, HTML, PDF or Word",
        description="Write the saved report of a session, with its numbered sources and the "
        "verification audit (citations kept and removed, each claim's support) as an "
        "appendix. SESSION is a session id or a unique prefix of one (see deepresearch "
        "sessions).",
    )
    parser.add_argument("session", metavar="SESSION", help="a session id or a unique prefix")
    parser.add_argument(
        "--format", choices=FORMATS, default="md", dest="fmt", help="the file format (md)"
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        help="the file to write, or a folder for it (default: EXPORT_DIR, else exports/ in "
        "the data directory)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from engine.commands.audit import AuditError, resolve_session
    from engine.export import default_export_dir, default_export_path, export_report
    from engine.sessions import list_sessions, load_report
    from engine.terminal_text import one_line

    settings = load_settings()
    try:
        info = resolve_session(list_sessions(settings), args.session)
    except AuditError as error:
        print(f"deepresearch export: {error}", file=sys.stderr)
        return error.code
    except sqlite3.Error as error:
        print(f"deepresearch export: cannot read the session index: {error}", file=sys.stderr)
        return EXIT_FAILED
    report = load_report(settings, info.session_id)
    if report is None:
        print(
            f"deepresearch export: session {info.session_id} has no report yet "
            f"(status: {info.status})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    out = Path(args.out).expanduser() if args.out else default_export_dir(settings)
    # A folder, existing or named with a trailing slash, gets the default file name.
    if not args.out or out.is_dir() or args.out.endswith(("/", os.sep)):
        out = default_export_path(out, info.session_id, args.fmt)
    try:
        written = export_report(
            report, question=info.question, session_id=info.session_id, fmt=args.fmt, path=out
        )
    except OSError as error:
        reason = error.strerror or "cannot write"
        print(f"deepresearch export: {reason}: {one_line(str(out))}", file=sys.stderr)
        return EXIT_FAILED
    print(f"wrote {written}")
    return EXIT_OK
