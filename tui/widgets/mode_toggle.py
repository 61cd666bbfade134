"""The research mode chooser (auto, quick, deep) and the route the engine took."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:
    from engine.events import RouteDecided

Mode = Literal["auto", "quick", "deep"]
MODES: tuple[Mode, ...] = ("auto", "quick", "deep")


# From this width on, the toggle spells out its label and whose choice the route was.
ROOMY_COLUMNS = 110


class ModeToggle(Static):
    """Shows the chosen mode; `cycle()` moves to the next. The route is shown as reported."""

    DEFAULT_CSS = "ModeToggle { width: auto; height: 1; padding: 0 1; }"

    mode: reactive[Mode] = reactive[Mode]("auto")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.route: RouteDecided | None = None

    def cycle(self) -> Mode:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        return self.mode

    def show_route(self, route: RouteDecided | None) -> None:
        self.route = route
        self.refresh(layout=True)  # the width follows the text

    def watch_mode(self) -> None:
        self.refresh()

    def render(self) -> Text:
        # Beside the question field, which needs the room on a narrow terminal: there the
        # label and "(your choice)" go (the highlighted mode says what was chosen).
        roomy = self.app.size.width >= ROOMY_COLUMNS
        text = Text("mode " if roomy else "", style="dim")
        for mode in MODES:
            text.append(f" {mode} ", style="reverse bold" if mode == self.mode else "")
        if self.route is not None:
            text.append("  → ", style="dim")
            text.append(self.route.mode, style="bold")
            if self.route.overridden and roomy:
                text.append(" (your choice)", style="dim")
        return text

    def on_click(self) -> None:
        self.cycle()
