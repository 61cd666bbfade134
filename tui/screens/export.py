"""Asks which format and where to export the report, offering the default path in place.

The path field keeps the focus, so Enter writes at once; Tab reaches the format list. The
chosen format sets the file's extension, and typing a known extension chooses its format.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, RadioButton, RadioSet, Static

# The formats the engine writes (engine.export.FORMATS), by extension, as the list names them.
EXPORT_FORMATS: dict[str, str] = {
    "md": "Markdown",
    "html": "HTML",
    "pdf": "PDF",
    "docx": "Word",
}


@dataclass(frozen=True)
class ExportChoice:
    path: Path
    fmt: str


class ExportPathInput(Input):
    """The path field; its Enter is named in the footer like every other key that acts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Write file", id="export.write")
    ]


class ExportScreen(ModalScreen[ExportChoice | None]):
    """Dismisses with the chosen path (`~` expanded) and format, or None when abandoned."""

    CSS_PATH = Path(__file__).with_name("dialog.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "abandon", "Don't export", id="export.abandon")
    ]

    def __init__(self, default: Path) -> None:
        super().__init__()
        self.default = default
        self.fmt = format_of(default) or "md"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-panel") as panel:
            panel.border_title = "Export the report"
            yield Static(
                Text(
                    "File to write, with numbered sources and the verification audit "
                    "(Enter writes it, Tab chooses the format, Escape cancels):"
                ),
                classes="dialog-text",
            )
            # The field shows the end of a long path; the folder it goes to is said whole here.
            yield Static(folder_line(self.default), id="export-folder")
            yield ExportPathInput(str(self.default), id="export-path")
            with RadioSet(id="export-format"):
                for fmt, name in EXPORT_FORMATS.items():
                    yield RadioButton(name, value=fmt == self.fmt, id=f"export-{fmt}")
        yield Footer()

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        field.cursor_position = len(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        typed = event.value.strip()
        path = Path(typed).expanduser() if typed else None
        self.query_one("#export-folder", Static).update(folder_line(path))
        typed_format = format_of(path) if path else None
        if typed_format and typed_format != self.fmt:
            self.fmt = typed_format
            self.query_one(f"#export-{typed_format}", RadioButton).value = True

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        chosen = (event.pressed.id or "").removeprefix("export-")
        if chosen not in EXPORT_FORMATS or chosen == self.fmt:
            return
        self.fmt = chosen
        field = self.query_one(Input)
        field.value = with_format(field.value, chosen)
        field.cursor_position = len(field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(ExportChoice(Path(event.value.strip()).expanduser(), self.fmt))

    def action_abandon(self) -> None:
        self.dismiss(None)


def format_of(path: Path) -> str | None:
    """The export format a file name's extension names, if any."""
    suffix = path.suffix.lower().removeprefix(".")
    return "md" if suffix == "markdown" else suffix if suffix in EXPORT_FORMATS else None


def with_format(typed: str, fmt: str) -> str:
    """The typed path with the extension of `fmt` (an unknown extension is kept, then added to)."""
    if not typed.strip():
        return typed
    path = Path(typed)
    stem = path.with_suffix("") if format_of(path) else path
    return f"{stem}.{fmt}"


def folder_line(path: Path | None) -> Text:
    """ "into folder /home/me/exports": where the file goes, from its start."""
    if path is None:
        return Text("no file named yet", style="dim")
    return Text.assemble(("into folder ", "dim"), (str(path.parent), "bold"))
