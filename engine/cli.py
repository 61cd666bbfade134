"""The `deepresearch` command line: argument parsing and subcommand dispatch.

With no subcommand it launches the terminal app through the `launch_app` callback that the
entry point (tui/cli.py) passes in, so the engine never imports the UI.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version

from engine.config import SettingsError

# A write the disk refused (full, failing, read-only): the session is kept, resumable.
EXIT_DISK = 1
# Subcommand modules under engine/commands/, in the order `--help` lists them.
COMMANDS: tuple[str, ...] = (
    "doctor",
    "run",
    "sessions",
    "audit",
    "export",
    "index",
    "serve",
    "mcp",
    "eval",
)
# What each command (None: the app) needs of DATA_DIR, checked before it starts any work so a
# folder that cannot be used is one line naming DATA_DIR, not a traceback halfway through.
# `doctor` reports on the folder instead of stopping at it.
DATA_DIR_ACCESS: dict[str | None, str] = {
    None: "write",
    "run": "write",
    "serve": "write",
    "mcp": "write",
    "eval": "write",
    "index": "write",
    "sessions": "read",
    "audit": "read",
    "export": "read",
}


def package_version() -> str:
    try:
        return version("deepresearch")
    except PackageNotFoundError:
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="deepresearch",
        description="Deep research in your terminal: plan, research in parallel, verified "
        "citations. With no command, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"deepresearch {package_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"engine.commands.{name}").register(subparsers)
    return parser


def _check_data_dir(access: str | None) -> None:
    if access is None:
        return
    from engine.config import load_settings
    from engine.data_dir import check_data_dir, prepare_data_dir

    settings = load_settings()
    if access == "write":
        prepare_data_dir(settings)
    else:
        check_data_dir(settings)


def main(argv: Sequence[str] | None = None, *, launch_app: Callable[[], int] | None = None) -> int:
    """Parse arguments and run the chosen subcommand, or the app when there is none."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _check_data_dir(DATA_DIR_ACCESS.get(args.command))
        if args.command is None:
            if launch_app is None:
                parser.error("the app is not available from this entry point")
            return launch_app()
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except SettingsError as exc:
        print(f"deepresearch: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("deepresearch: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # A full disk fails every write in turn (each while the last is handled): one line.
        from engine.disk_errors import describe, disk_failure

        failure = disk_failure(exc)
        if failure is None:
            raise
        print(f"deepresearch: {describe(failure)}", file=sys.stderr)
        return EXIT_DISK
