"""The Research units pane: one live row per researcher the supervisor dispatched."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from engine.events import ResearchUnitSummary
from tui.presentation import format_duration, one_line

_STATUS_STYLE = {
    "queued": "dim",
    "running": "bold cyan",
    "completed": "green",
    "failed": "bold red",
    "timed_out": "bold red",
    "skipped": "yellow",
}
# Fixed widths: measuring every cell on each update is what makes a big table slow.
_COLUMNS = (
    ("Topic", "topic", 26),
    ("Status", "status", 9),
    ("Tools", "tools", 5),
    ("Evidence", "evidence", 8),
    ("Time", "time", 7),
    ("Failure", "failure", 30),
)


class UnitsTable(DataTable[Text | str]):
    """Rows keyed by unit id, updated in place as the engine reports each unit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Unit details", id="units.open")
    ]

    class Opened(Message):
        def __init__(self, unit_id: str) -> None:
            super().__init__()
            self.unit_id = unit_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.border_title = "Research units"

    def on_mount(self) -> None:
        for label, key, width in _COLUMNS:
            self.add_column(label, key=key, width=width)

    @staticmethod
    def cells(unit: ResearchUnitSummary) -> tuple[Text | str, ...]:
        return (
            Text(one_line(unit.topic, 60)),
            Text(unit.status, style=_STATUS_STYLE.get(unit.status, "")),
            str(unit.tool_call_count),
            str(unit.evidence_count),
            format_duration(unit.duration_seconds),
            Text(one_line(unit.failure_reason or "", 60), style="red"),
        )

    def show_unit(self, unit: ResearchUnitSummary) -> None:
        cells = self.cells(unit)
        try:
            self.get_row_index(unit.id)
        except RowDoesNotExist:
            self.add_row(*cells, key=unit.id)
            return
        for (_, column, _), value in zip(_COLUMNS, cells, strict=True):
            self.update_cell(unit.id, column, value)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # Enter and a mouse click both select the row under the cursor.
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))
