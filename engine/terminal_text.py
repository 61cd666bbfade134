"""Text that is safe to print on a terminal or store for printing later.

A question, a document name or a model's reply may hold terminal control sequences: an
ESC/OSC sequence can retitle the window, clear the screen or forge a hyperlink, C0/C1 controls
move the cursor, and bidi overrides (U+202E) make text read differently from what it is. The
app's renderer drops them; the command line must too, so every text it prints or stores goes
through `terminal_safe` (multi-line text keeps its newlines and tabs) or `one_line`.
"""

from __future__ import annotations

import re
from typing import IO

# ESC-introduced sequences: CSI (ESC [ … final), OSC/DCS/SOS/PM/APC strings (ended by BEL or
# ESC \ — or by nothing, when a hostile string is cut short), and two-character escapes.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_].*?(?:\x07|\x1b\\|$)"
    r"|\x1b[ -/]*[0-~]?",
    re.DOTALL,
)
# The same, introduced by their 8-bit C1 forms (CSI U+009B, OSC U+009D, DCS U+0090, …).
_C1_SEQUENCE = re.compile(
    r"\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d\x9e\x9f].*?(?:\x07|\x9c|\x1b\\|$)", re.DOTALL
)
# Bidi embeddings, overrides and isolates, and the invisible marks that steer them.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROLS_KEEPING_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + "]")
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f" + _BIDI + "]")


def _without_sequences(text: str) -> str:
    return _C1_SEQUENCE.sub("", _ESCAPE_SEQUENCE.sub("", text))


def terminal_safe(text: str) -> str:
    """`text` without control sequences or bidi controls; newlines and tabs are kept."""
    text = text.replace("\r\n", "\n")
    return _CONTROLS_KEEPING_LAYOUT.sub("", _without_sequences(text))


def one_line(text: str) -> str:
    """`text` as a single safe line: controls dropped, every run of whitespace one space."""
    return " ".join(_CONTROLS.sub(" ", _without_sequences(text)).split())


_UNPRINTABLE_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\udc80-\udcff" + _BIDI + "]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte the file system name did not decode (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown_name(name: str) -> str:
    """A file or folder name as a terminal may print it: every control, bidi or undecodable
    character written as its escape (`\\x1b`, `\\u202e`), as `ls -b` does, so the name is
    printed whole and exact but can drive nothing."""
    return _UNPRINTABLE_IN_NAMES.sub(_escape, name)


class TerminalSafeStream:
    """A text stream that passes on only what `terminal_safe` keeps of each write."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(terminal_safe(text))

    def flush(self) -> None:
        self.stream.flush()
