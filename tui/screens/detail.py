"""Base of the read-only modals (details, audit, help): a titled panel that the modal's own
keys scroll, every one of them named in the footer, closed with Escape or q."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

# The scrolling actions: shown (and bound) only while there is something to scroll.
_SCROLLING = frozenset({"scroll_by", "page", "edge"})


class ScrollPanel(VerticalScroll, can_focus=False):
    """A modal's body. It takes no focus, so the modal's keys (in its footer) scroll it."""

    def on_resize(self, _: events.Resize) -> None:
        # Content arriving or the terminal resizing decides whether there is anything to
        # scroll, hence which keys the footer offers.
        self.screen.refresh_bindings()


class PagerScreen(ModalScreen[None]):
    """A modal with one `ScrollPanel` (`#detail-panel` unless `panel_id` says otherwise)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="pager.close"),
        Binding("down,j", "scroll_by(1)", "Scroll", key_display="↑↓", id="pager.scroll"),
        Binding("up,k", "scroll_by(-1)", "Scroll up", show=False),
        Binding("space,pagedown", "page(1)", "Page", key_display="space/b", id="pager.page"),
        Binding("b,pageup", "page(-1)", "Page up", show=False),
        Binding("g,home", "edge('top')", "Top/end", key_display="g/G", id="pager.edge"),
        Binding("G,end", "edge('end')", "End", show=False),
    ]

    panel_id = "detail-panel"

    @property
    def panel(self) -> ScrollPanel:
        return self.query_one(f"#{self.panel_id}", ScrollPanel)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _SCROLLING:
            panels = self.query(f"#{self.panel_id}")
            return bool(panels) and panels.first().max_scroll_y > 0
        return True

    def action_scroll_by(self, lines: int) -> None:
        self.panel.scroll_relative(y=lines, animate=False)

    def action_page(self, direction: int) -> None:
        if direction > 0:
            self.panel.scroll_page_down(animate=False)
        else:
            self.panel.scroll_page_up(animate=False)

    def action_edge(self, where: str) -> None:
        if where == "top":
            self.panel.scroll_home(animate=False)
        else:
            self.panel.scroll_end(animate=False)


class DetailScreen(PagerScreen):
    """Subclasses provide `title` and `lines()`; every line is plain text (markup off)."""

    CSS_PATH = Path(__file__).with_name("detail.tcss")

    title_text = "Details"

    def lines(self) -> Iterable[Text]:
        return ()

    def compose(self) -> ComposeResult:
        with ScrollPanel(id="detail-panel") as panel:
            panel.border_title = self.title_text
            for line in self.lines():
                yield Static(line, classes="detail-line")
        yield Footer()

    def show_lines(self) -> None:
        """Render `lines()` again, keeping the scroll position (for details that change)."""
        panel = self.panel
        with self.app.batch_update():
            panel.remove_children()
            panel.mount_all(Static(line, classes="detail-line") for line in self.lines())


def heading(text: str) -> Text:
    return Text(text, style="bold underline")


def field(label: str, value: str) -> Text:
    return Text.assemble((f"{label}: ", "dim"), value)
