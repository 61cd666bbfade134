"""`deepresearch index PATH`: build or refresh the local-document search index of a folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from engine.config import load_settings
from engine.terminal_text import shown_name, terminal_safe

BAR_WIDTH = 30


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index",
        help="build or refresh the search index of a documents folder",
        description="Index the .md, .txt, .html and .pdf files of PATH for the local search "
        "provider. Only files whose size or modification time changed are read again; "
        "unreadable files are skipped with a warning.",
    )
    parser.add_argument("path", type=Path, help="the folder of documents to index")
    parser.set_defaults(handler=run)


class ProgressBar:
    """A plain-text progress bar on a terminal stream (one line, redrawn with \\r)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.interactive = stream.isatty()
        self.drawn = False

    def __call__(self, done: int, total: int, name: str) -> None:
        filled = BAR_WIDTH * done // max(total, 1)
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        name = shown_name(name)
        label = name if len(name) <= 40 else "…" + name[-39:]
        line = f"[{bar}] {done}/{total} {label}"
        if self.interactive:
            self.stream.write("\r" + line.ljust(BAR_WIDTH + 60))
        elif done == total or done % 10 == 0:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn and self.interactive:
            self.stream.write("\n")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from engine.tools.local_index import LocalIndex

    folder: Path = args.path.expanduser()
    if not folder.is_dir():
        print(f"deepresearch index: {shown_name(str(folder))} is not a folder", file=sys.stderr)
        return 2
    settings = load_settings()
    index = LocalIndex(settings.index_db_path, folder, max_file_bytes=settings.index_max_file_bytes)
    bar = ProgressBar(sys.stderr)
    try:
        stats = index.refresh(progress=bar)
    finally:
        bar.finish()
    for warning in stats.warnings:
        print(f"warning: {terminal_safe(warning)}", file=sys.stderr)
    print(
        f"indexed {stats.files_indexed} files, skipped {stats.files_skipped}, "
        f"unchanged {stats.files_unchanged}, removed {stats.files_removed}; "
        f"{stats.chunks} chunks in {stats.seconds:.1f} s"
    )
    print(f"index: {settings.index_db_path}")
    return 0
