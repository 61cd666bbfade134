"""Entry point of the `deepresearch` console script.

The engine owns argument parsing; this module only supplies the way to launch the app, so the
engine never imports the UI and the app's first frame needs nothing heavier than Textual.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from engine.cli import main as engine_main


def launch_app() -> int:
    from tui.app import run_app

    return run_app()


def main(argv: Sequence[str] | None = None) -> int:
    return engine_main(argv, launch_app=launch_app)


if __name__ == "__main__":
    sys.exit(main())
