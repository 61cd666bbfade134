"""`deepresearch doctor`: print the configuration report; exit 0 when a session can run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.config import load_settings, loaded_env_file
from engine.doctor import PROBE_TIMEOUT_SECONDS, collect_report
from engine.doctor.discovery import USUAL_PORTS
from engine.terminal_text import terminal_safe


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check configuration and what each configured endpoint can do",
        description="Print what is configured, what is missing and what each missing piece "
        f"disables. Each configured endpoint is asked GET /models ({PROBE_TIMEOUT_SECONDS:g} s "
        "limit); each LLM endpoint then gets a few tiny requests (one tool call, one JSON "
        "reply per structured-output method, each within LLM_TIMEOUT_SECONDS) that find its "
        "model profile, which is remembered under DATA_DIR for later runs. The support judge's "
        "model is then calibrated on a dozen labelled sentences (GROUNDING_JUDGE=auto uses it "
        "only if it passes; --no-judge skips this). With no endpoint "
        "configured, it lists the OpenAI-compatible servers that answer GET /v1/models on "
        "127.0.0.1's usual ports (Ollama, llama.cpp, LM Studio, vLLM). Exit code 0 when a "
        "research session can run, 1 otherwise.",
    )
    parser.add_argument(
        "--no-probe", action="store_true", help="skip every network request (no probes at all)"
    )
    parser.add_argument(
        "--no-judge",
        action="store_true",
        help="skip the support judge's calibration (a few model calls)",
    )
    parser.set_defaults(handler=run)


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    env_file = loaded_env_file()
    settings = load_settings()
    report = collect_report(
        settings,
        probe=not args.no_probe,
        progress=_progress,
        local_ports=USUAL_PORTS,
        calibrate_judge=not args.no_judge,
    )
    # Document and folder names come from the disk: nothing in them may drive the terminal.
    print(terminal_safe(report.render()))
    print(f"\nsettings file: {env_file if env_file else 'none found (environment only)'}")
    return 0 if report.can_run else 1
