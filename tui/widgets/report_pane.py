"""The Report pane: the verified report as Markdown, walked citation by citation."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from tui.citations import CITATION_LINK_PREFIX, CitationMark, citation_marks, link_citations
from tui.presentation import one_line

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from engine.events import ReportReady

_NEEDS_REPORT = {"next_citation", "previous_citation", "open_citation", "audit", "export", "copy"}


class ReportPane(Vertical, can_focus=True):
    """Renders the report; every action here needs a report to act on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_square_bracket,n", "next_citation", "Next [n]", id="report.next"),
        Binding("left_square_bracket,p", "previous_citation", "Prev [n]", id="report.prev"),
        Binding("enter", "open_citation", "Open [n]", id="report.open"),
        Binding("a", "audit", "Audit", id="report.audit"),
        Binding("e", "export", "Export", id="report.export"),
        Binding("c", "copy", "Copy", id="report.copy"),
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", show=False),
        Binding("pagedown", "page_down", show=False),
    ]

    class CitationOpened(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    class ActionRequested(Message):
        """Audit, export or copy: the screen owns the data and the files."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Report"
        self.report: ReportReady | None = None
        self.marks: list[CitationMark] = []
        self.mark_index = -1

    def compose(self) -> ComposeResult:
        # The Markdown widget (and its parser) is created with the first report, not with the
        # first frame.
        yield VerticalScroll(id="report-scroll", can_focus=False)
        yield Static(
            Text("The report appears here when research is done.", style="dim"), id="report-status"
        )

    def show_report(self, report: ReportReady) -> None:
        self.report = report
        self.marks = citation_marks(report.report)
        self.mark_index = -1
        text = link_citations(report.report)
        body = self.body
        if body is None:
            from textual.widgets import Markdown

            self.query_one("#report-scroll").mount(
                Markdown(text, id="report-body", open_links=False)
            )
        else:
            body.update(text)
        kept, removed = len(report.kept_citations), len(report.removed_citations)
        self.border_subtitle = f"{report.verification_status} · {kept} kept · {removed} removed"
        self._show_status()
        self.refresh_bindings()

    def clear(self) -> None:
        self.report, self.marks, self.mark_index = None, [], -1
        if self.body is not None:
            self.body.update("")
        self.border_subtitle = ""
        self.query_one("#report-status", Static).update(Text(""))
        self.refresh_bindings()

    @property
    def body(self) -> Markdown | None:
        """The Markdown widget once a report was shown."""
        found = self.query("#report-body")
        return found.first() if found else None  # type: ignore[return-value]

    @property
    def current_citation(self) -> int | None:
        if 0 <= self.mark_index < len(self.marks):
            return self.marks[self.mark_index].number
        return None

    def _show_status(self) -> None:
        status = self.query_one("#report-status", Static)
        if not self.marks:
            status.update(
                Text("No citations in this report. a: audit · e: export · c: copy", style="dim")
            )
            return
        if self.mark_index < 0:
            status.update(
                Text(
                    f"{len(self.marks)} citations · ] next · [ previous · Enter opens", style="dim"
                )
            )
            return
        mark = self.marks[self.mark_index]
        status.update(
            Text.assemble(
                (f"[{mark.number}] ", "bold"),
                (f"{self.mark_index + 1}/{len(self.marks)}  ", "dim"),
                one_line(mark.context, 300),
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _NEEDS_REPORT:
            if self.report is None:
                return False
            if action in {"next_citation", "previous_citation", "open_citation"}:
                return bool(self.marks)
        return True

    def action_next_citation(self) -> None:
        self.mark_index = (self.mark_index + 1) % len(self.marks)
        self._show_status()

    def action_previous_citation(self) -> None:
        self.mark_index = (self.mark_index - 1) % len(self.marks)
        self._show_status()

    def action_open_citation(self) -> None:
        if self.mark_index < 0:
            self.mark_index = 0
            self._show_status()
        number = self.current_citation
        if number is not None:
            self.post_message(self.CitationOpened(number))

    def action_audit(self) -> None:
        self.post_message(self.ActionRequested("audit"))

    def action_export(self) -> None:
        self.post_message(self.ActionRequested("export"))

    def action_copy(self) -> None:
        self.post_message(self.ActionRequested("copy"))

    def action_scroll_up(self) -> None:
        self.query_one("#report-scroll", VerticalScroll).scroll_up()

    def action_scroll_down(self) -> None:
        self.query_one("#report-scroll", VerticalScroll).scroll_down()

    def action_page_up(self) -> None:
        self.query_one("#report-scroll", VerticalScroll).scroll_page_up()

    def action_page_down(self) -> None:
        self.query_one("#report-scroll", VerticalScroll).scroll_page_down()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(CITATION_LINK_PREFIX):
            number = event.href.removeprefix(CITATION_LINK_PREFIX)
            if number.isdigit():
                self.post_message(self.CitationOpened(int(number)))
