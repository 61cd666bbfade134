"""`deepresearch doctor`: print the configuration report; exit 0 when a session can run."""

from __future__ import annotations

import argparse
from typing import Any

from engine.config import load_settings, loaded_env_file
from engine.doctor import collect_report


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check configuration and whether configured endpoints answer",
        description="Print what is configured, what is missing and what each missing piece "
        "disables, and probe each configured endpoint (3 s limit). Exit code 0 when a "
        "research session can run, 1 otherwise.",
    )
    parser.add_argument(
        "--no-probe", action="store_true", help="skip the network probes of endpoints"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    env_file = loaded_env_file()
    settings = load_settings()
    report = collect_report(settings, probe=not args.no_probe)
    print(report.render())
    print(f"\nsettings file: {env_file if env_file else 'none found (environment only)'}")
    return 0 if report.can_run else 1
