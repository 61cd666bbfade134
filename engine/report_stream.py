"""The report as the writer writes it: `ReportDelta` events, sent only from inside the writer.

The writer node opens `streamed_report()` around its model call; whatever produces the text
(a streaming transport, the offline model) hands its pieces to `report_draft()`, which is None
everywhere else, so no other role's tokens ever reach the report pane.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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


_draft: ContextVar[ReportDraft | None] = ContextVar("report_draft", default=None)


@contextmanager
def streamed_report() -> Iterator[ReportDraft]:
    """The writer's model call inside this block streams its text as `ReportDelta`s."""
    draft = ReportDraft()
    token = _draft.set(draft)
    try:
        yield draft
    finally:
        _draft.reset(token)


def report_draft() -> ReportDraft | None:
    """The report being streamed from this call, or None outside the writer."""
    return _draft.get()


def report_sink() -> Callable[[str], None]:
    """For a model call about to stream: where its text pieces go (nowhere outside the
    writer). Its first piece starts a new draft."""
    draft = _draft.get()
    if draft is None:
        return _nowhere
    draft.begin()
    return draft.add


def _nowhere(_: str) -> None:
    return None
