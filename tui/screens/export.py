"""Asks where to export the report, offering the default path, editable in place."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class ExportPathInput(Input):
    """The path field; its Enter is named in the footer like every other key that acts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Write file", id="export.write")
    ]


class ExportScreen(ModalScreen[Path | None]):
    """Dismisses with the chosen path (`~` expanded), or None when abandoned."""

    CSS_PATH = Path(__file__).with_name("dialog.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "abandon", "Don't export", id="export.abandon")
    ]

    def __init__(self, default: Path) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-panel") as panel:
            panel.border_title = "Export the report"
            yield Static(
                Text("Markdown file to write (Enter writes it, Escape cancels):"),
                classes="dialog-text",
            )
            # The field shows the end of a long path; the folder it goes to is said whole here.
            yield Static(folder_line(self.default), id="export-folder")
            yield ExportPathInput(str(self.default), id="export-path")
        yield Footer()

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        field.cursor_position = len(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        typed = event.value.strip()
        path = Path(typed).expanduser() if typed else None
        self.query_one("#export-folder", Static).update(folder_line(path))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(Path(event.value.strip()).expanduser())

    def action_abandon(self) -> None:
        self.dismiss(None)


def folder_line(path: Path | None) -> Text:
    """ "into folder /home/me/exports": where the file goes, from its start."""
    if path is None:
        return Text("no file named yet", style="dim")
    return Text.assemble(("into folder ", "dim"), (str(path.parent), "bold"))


def write_export(path: Path, text: str) -> Path | str:
    """Write the report; the absolute path written, or why it failed (plain words)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        return f"{error.strerror or 'cannot write'}: {path}"
    return path.resolve()
