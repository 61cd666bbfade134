"""The Report pane: the verified report as a reader — pager keys, search, citation by citation."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from tui.presentation.formatting import counted, one_line
from tui.presentation.labels import verification_reason_label
from tui.view.citations import CITATION_LINK_PREFIX, CitationMark, citation_marks, link_citations
from tui.view.report_spans import Highlighter, Span, citation_spans, search_spans

_SUPPORT_STYLES = {"supported": "green", "weak": "yellow", "unsupported": "bold red"}
_WORDS = re.compile(r"[a-z0-9_]{3,}")


if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

    from engine.events import ClaimSupport, ReportDelta, ReportReady

_NEEDS_REPORT = {
    "next_citation",
    "previous_citation",
    "open_citation",
    "audit",
    "export",
    "copy",
    "search",
    "next_match",
    "previous_match",
}
# What the pane says while there is no report yet, by the phase the engine reported.
NO_REPORT_YET = "The report appears here when research is done."
_WAITING = {
    "researching": "Research in progress: the report is written once the evidence gate passes.",
    "quick_research": "Quick research in progress: the answer appears here when it is verified.",
    "writing": "Writing the report…",
    "verifying": "Verifying every citation against the retrieved sources…",
    "cancelled": "Stopped before a report was written: resume the session to go on.",
    "resuming": "Resuming the run…",
    "starting": "Starting…",
    "failed": "The run failed before a report was written.",
}


class ReportPane(Vertical, can_focus=True):
    """Renders the report; every action here needs a report to act on."""

    ALLOW_MAXIMIZE = True
    # Ordered by importance: the context footer shows them in this order.
    BINDINGS: ClassVar[list[BindingType]] = [
        # Pairs show as one footer entry ("]/[ Cite"), so the reader's keys fit 80 columns.
        Binding(
            "right_square_bracket", "next_citation", "Cite", key_display="]/[", id="report.next"
        ),
        Binding(
            "left_square_bracket", "previous_citation", "Prev cite", show=False, id="report.prev"
        ),
        Binding("enter", "open_citation", "Open", id="report.open"),
        Binding("slash", "search", "Search", id="report.search"),
        Binding("n", "next_match", "Match", key_display="n/N", id="report.next_match"),
        Binding("N", "previous_match", "Prev match", show=False, id="report.prev_match"),
        Binding("e", "export", "Export", id="report.export"),
        Binding("c", "copy", "Copy", id="report.copy"),
        Binding("a", "audit", "Audit", id="report.audit"),
        Binding("space,pagedown", "page_down", "Page", key_display="spc", show=False),
        Binding("b,pageup", "page_up", "Page up", show=False),
        Binding("g,home", "top", "Top", show=False),
        Binding("G,end", "bottom", "End", show=False),
        Binding("up,k", "scroll_up", "Scroll up", show=False),
        Binding("down,j", "scroll_down", "Scroll down", show=False),
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
        self.border_title = "4 Report"
        self.report: ReportReady | None = None
        self.marks: list[CitationMark] = []
        self.mark_index = -1
        self.query_text = ""
        self.matches: list[Span] = []
        self.match_index = -1
        self._highlight = Highlighter()
        # The writer's text as it arrives, until the verified report replaces it.
        self._stream: MarkdownStream | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="report-scroll", can_focus=False):
            # Above the report, scrolled with it: plan tracks research ended without.
            coverage = Static(id="report-coverage")
            coverage.display = False
            yield coverage
        yield Input(placeholder="Search the report, Enter finds", id="report-search")
        yield Static(Text(NO_REPORT_YET, style="dim"), id="report-status")

    # ---- what the engine sends ---------------------------------------------------------

    async def show_report(self, report: ReportReady) -> None:
        await self._stop_stream()
        self.report = report
        self.marks = citation_marks(report.report)
        self.mark_index = -1
        self._reset_search()
        self._highlight.clear()
        body = await self._body_widget()
        await body.update(link_citations(_without_notice(report)))
        self._scroll.scroll_home(animate=False)
        kept, removed = len(report.kept_citations), len(report.removed_citations)
        offline = " · offline" if report.offline_notice else ""
        self.border_subtitle = (
            f"{report.verification_status} · {kept} kept · {removed} removed{offline}"
        )
        self.add_class("-has-report")
        self._show_status()
        self.refresh_bindings()

    async def show_written(self, delta: ReportDelta) -> None:
        """The writer's text as it comes, rendered as it grows; citations are checked later."""
        body = await self._body_widget()
        if delta.start or self._stream is None:
            await self._stop_stream()
            self.report, self.marks, self.mark_index = None, [], -1
            self.remove_class("-has-report")
            self.border_subtitle = "being written · not yet verified"
            await body.update("")
            from textual.widgets import Markdown

            self._stream = Markdown.get_stream(body)
        await self._stream.write(delta.text)
        where = f": {delta.section}" if delta.section else ""
        self.query_one("#report-status", Static).update(
            Text(f"Writing{where}… citations are checked when it is done", style="dim")
        )
        self.refresh_bindings()

    async def _stop_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.stop()

    async def _body_widget(self) -> Markdown:
        # The Markdown widget (and its parser) is created with the first report, not with
        # the first frame.
        body = self.body
        if body is None:
            from textual.widgets import Markdown

            body = Markdown("", id="report-body", open_links=False)
            await self.query_one("#report-scroll").mount(body)
        return body

    def show_phase(self, phase: str) -> None:
        """Say what the engine is doing while there is no report yet."""
        if self.report is None:
            waiting = _WAITING.get(phase, NO_REPORT_YET)
            self.query_one("#report-status", Static).update(Text(waiting, style="dim"))

    def show_unresearched(self, titles: list[str], reason: str) -> None:
        """Say which plan tracks the report has no research for, and why."""
        coverage = self.query_one("#report-coverage", Static)
        coverage.display = bool(titles)
        if titles:
            count = "1 plan track was" if len(titles) == 1 else f"{len(titles)} plan tracks were"
            note = Text.assemble((f"{count} not researched ({reason}): ", "bold yellow"))
            note.append("; ".join(titles))
            coverage.update(note)

    def clear(self) -> None:
        if self._stream is not None:
            self.run_worker(self._stop_stream(), group="report-stream")
        self.remove_class("-has-report")
        self.show_unresearched([], "")
        self.report, self.marks, self.mark_index = None, [], -1
        self._reset_search()
        self._highlight.clear()
        if self.body is not None:
            self.body.update("")
        self.border_subtitle = ""
        self.query_one("#report-status", Static).update(Text(NO_REPORT_YET, style="dim"))
        self.refresh_bindings()

    def _reset_search(self) -> None:
        self.query_text, self.matches, self.match_index = "", [], -1
        self.query_one("#report-search", Input).remove_class("-open")

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

    @property
    def highlighted_text(self) -> str:
        """The text of the highlighted block (what the reader sees marked), or ""."""
        block = self._highlight.block
        return block._content.plain if block is not None else ""

    # ---- status line -------------------------------------------------------------------

    def _show_status(self) -> None:
        status = self.query_one("#report-status", Static)
        report = self.report
        if report is None:
            return
        reason = verification_reason_label(report.verification_reason)
        reason = f" · {reason}" if reason else ""
        if self.matches and self.match_index >= 0:
            status.update(
                Text.assemble(
                    (f"“{self.query_text}” ", "bold"),
                    f"{self.match_index + 1}/{len(self.matches)}",
                    (" · n next · N previous · / new search", "dim"),
                )
            )
            return
        if not self.marks:
            status.update(Text(f"No citations in this report{reason}", style="dim"))
            return
        if self.mark_index < 0:
            claims = report.claims
            supported = sum(1 for claim in claims if claim.status == "supported")
            support = (
                f" · {supported}/{counted(len(claims), 'sentence')} supported" if claims else ""
            )
            status.update(
                Text(
                    f"{counted(len(self.marks), 'citation')}{support} · ] next · [ previous · "
                    "Enter opens"
                    f"{reason}",
                    style="dim",
                )
            )
            return
        mark = self.marks[self.mark_index]
        line = Text.assemble(
            (f"[{mark.number}] ", "bold"),
            (f"{self.mark_index + 1}/{len(self.marks)}  ", "dim"),
        )
        claim = self._claim_at(mark.number, mark.context)
        if claim is not None:
            # The sentence's support, as the engine scored it against its sources.
            line.append(f"{claim.status} {claim.score:.2f} ", style=_SUPPORT_STYLES[claim.status])
        line.append(one_line(mark.context, 300))
        status.update(line)

    def _claim_at(self, number: int, context: str) -> ClaimSupport | None:
        """The scored sentence this citation sits in (by number and shared words)."""
        if self.report is None:
            return None
        words = set(_WORDS.findall(context.lower()))
        best, best_shared = None, 0
        for claim in self.report.claims:
            if number not in claim.numbers or claim.action == "removed":
                continue
            shared = len(words & set(_WORDS.findall(claim.text.lower())))
            if shared > best_shared:
                best, best_shared = claim, shared
        return best

    # ---- keyboard ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _NEEDS_REPORT:
            if self.report is None:
                return False
            if action in {"next_citation", "previous_citation", "open_citation"}:
                return bool(self.marks)
            if action in {"next_match", "previous_match"}:
                return bool(self.matches)
        return True

    def action_next_citation(self) -> None:
        self._go_to_citation((self.mark_index + 1) % len(self.marks))

    def action_previous_citation(self) -> None:
        self._go_to_citation((self.mark_index - 1) % len(self.marks))

    def _go_to_citation(self, index: int) -> None:
        self.mark_index = index
        self.matches, self.match_index = [], -1
        spans = citation_spans(self.body) if self.body is not None else []
        if index < len(spans):
            self._reveal(spans[index])
        self._show_status()
        self.refresh_bindings()

    def _reveal(self, span: Span) -> None:
        self._highlight.show(span)
        self.query_one("#report-scroll", VerticalScroll).scroll_to_center(span.block, animate=False)

    def action_open_citation(self) -> None:
        if self.mark_index < 0:
            self._go_to_citation(0)
        number = self.current_citation
        if number is not None:
            self.post_message(self.CitationOpened(number))

    def action_search(self) -> None:
        field = self.query_one("#report-search", Input)
        field.add_class("-open")
        field.value = self.query_text
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "report-search":
            return
        event.stop()
        event.input.remove_class("-open")
        self.focus()
        self.query_text = event.value.strip()
        self.matches = search_spans(self.body, self.query_text) if self.body else []
        self.match_index = -1
        if self.matches:
            self._go_to_match(0)
        else:
            self._highlight.clear()
            self.query_one("#report-status", Static).update(
                Text(f"“{self.query_text}” not found", style="yellow")
            )
        self.refresh_bindings()

    def on_key(self, event: object) -> None:
        # Escape in the search field closes it and returns to the report.
        from textual.events import Key

        if isinstance(event, Key) and event.key == "escape":
            field = self.query_one("#report-search", Input)
            if field.has_class("-open"):
                event.stop()
                field.remove_class("-open")
                self.focus()

    def action_next_match(self) -> None:
        self._go_to_match((self.match_index + 1) % len(self.matches))

    def action_previous_match(self) -> None:
        self._go_to_match((self.match_index - 1) % len(self.matches))

    def _go_to_match(self, index: int) -> None:
        self.match_index = index
        self._reveal(self.matches[index])
        self._show_status()

    def action_audit(self) -> None:
        self.post_message(self.ActionRequested("audit"))

    def action_export(self) -> None:
        self.post_message(self.ActionRequested("export"))

    def action_copy(self) -> None:
        self.post_message(self.ActionRequested("copy"))

    @property
    def _scroll(self) -> VerticalScroll:
        return self.query_one("#report-scroll", VerticalScroll)

    def action_scroll_up(self) -> None:
        self._scroll.scroll_up(animate=False)

    def action_scroll_down(self) -> None:
        self._scroll.scroll_down(animate=False)

    def action_page_up(self) -> None:
        self._scroll.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self._scroll.scroll_page_down(animate=False)

    def action_top(self) -> None:
        self._scroll.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self._scroll.scroll_end(animate=False)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(CITATION_LINK_PREFIX):
            number = event.href.removeprefix(CITATION_LINK_PREFIX)
            if number.isdigit():
                self.post_message(self.CitationOpened(int(number)))


def _without_notice(report: ReportReady) -> str:
    """The report to read: the offline notice the engine put atop it is the header's badge
    already, and would take the pane's first lines at 80×24."""
    notice = report.offline_notice
    if notice and report.report.startswith(f"> {notice}"):
        return report.report.removeprefix(f"> {notice}").lstrip("\n")
    return report.report
