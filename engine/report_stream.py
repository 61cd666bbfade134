"""A draft of the report fed from a model call, as `ReportDelta` events: what is left of it.

The report node sends the report section by section itself (engine/nodes/report.py), so no
call opens a draft any more and `report_draft()` is None everywhere. The offline model still
asks it (engine/models/offline/model.py); the module goes once that question goes.
"""

from __future__ import annotations

from engine.emit import emit
from engine.events import ReportDelta


class ReportDraft:
    """One writer call's text as it arrives; knows which section it is in."""

    def __init__(self) -> None:
        self.section = ""
        self._line = ""
        self._started = False

    def begin(self) -> None:
        """A new call (a retry, a revision): its first piece replaces what came before."""
        self.section, self._line, self._started = "", "", False

    def add(self, text: str) -> None:
        if not text:
            return
        self._follow_headings(text)
        emit(ReportDelta(section=self.section, text=text, start=not self._started))
        self._started = True

    def add_by_section(self, text: str) -> None:
        """A whole reply at once (a model that does not stream): one piece per section."""
        piece = ""
        for line in text.splitlines(keepends=True):
            if _heading(line) is not None and piece.strip():
                self.add(piece)
                piece = ""
            piece += line
        self.add(piece)

    def _follow_headings(self, text: str) -> None:
        lines = (self._line + text).split("\n")
        self._line = lines.pop()
        for line in lines:
            heading = _heading(line)
            if heading:
                self.section = heading


def _heading(line: str) -> str | None:
    """A Markdown ATX heading's text, or None for any other line."""
    stripped = line.strip()
    if not stripped.startswith("#"):
        return None
    marks = len(stripped) - len(stripped.lstrip("#"))
    rest = stripped[marks:]
    if marks > 6 or (rest and not rest.startswith(" ")):
        return None
    return rest.strip()


def report_draft() -> ReportDraft | None:
    """The draft this model call feeds: none, whichever call asks (see the module's note)."""
    return None
