"""Copy text to a clipboard and say honestly whether it got there.

A desktop clipboard tool (wl-copy, xclip, xsel, pbcopy) confirms by its exit status. Without
one, the text can only be sent to the terminal as an OSC 52 sequence: the terminal gives no
answer, so the result says it was *sent*, and whether this terminal is known to accept it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# Tried in this order; each reads the text on stdin.
_TOOLS: tuple[tuple[str, ...], ...] = (
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
    ("pbcopy",),
)
# Terminals that accept OSC 52 by default (tmux only with `set-clipboard on`).
_OSC52_TERMINALS = ("iTerm.app", "WezTerm", "kitty", "alacritty", "ghostty", "foot", "vscode")


@dataclass(frozen=True)
class CopyResult:
    copied: bool  # confirmed: the text is on a clipboard
    message: str


def _desktop_tool_copy(text: str, env: Mapping[str, str]) -> str | None:
    """The tool that took the text, or None when none is available or none succeeded."""
    has_display = bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    for command in _TOOLS:
        if command[0] != "pbcopy" and not has_display:
            continue
        if shutil.which(command[0]) is None:
            continue
        try:
            # A fixed command from `_TOOLS`; the text goes on stdin, never on the command line.
            subprocess.run(  # noqa: S603
                command, input=text.encode(), check=True, timeout=3, capture_output=True
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return command[0]
    return None


def _osc52_known(env: Mapping[str, str]) -> bool:
    program = env.get("TERM_PROGRAM", "")
    term = env.get("TERM", "")
    return program in _OSC52_TERMINALS or any(name in term for name in ("kitty", "alacritty"))


def copy_text(
    text: str,
    send_osc52: Callable[[str], None],
    *,
    env: Mapping[str, str] | None = None,
    desktop_copy: Callable[[str, Mapping[str, str]], str | None] = _desktop_tool_copy,
) -> CopyResult:
    env = os.environ if env is None else env
    tool = desktop_copy(text, env)
    if tool is not None:
        return CopyResult(True, f"Report copied to the clipboard ({tool}).")
    send_osc52(text)
    if _osc52_known(env):
        return CopyResult(True, "Report sent to the terminal clipboard (OSC 52).")
    where = " inside tmux (needs `set-clipboard on`)" if env.get("TMUX") else ""
    return CopyResult(
        False,
        "No clipboard tool found; the report was sent to the terminal as OSC 52"
        f"{where}, which this terminal may ignore. Export (e) writes it to a file.",
    )
