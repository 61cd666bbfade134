"""The Research units pane: one live row per researcher the supervisor dispatched."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable

from tui.presentation.formatting import counted, format_duration, format_running, one_line
from tui.presentation.labels import unit_label, unit_status_label
from tui.presentation.narrow_text import DistinctTitle, shared_prefix_lengths
from tui.widgets.fit_columns import FitColumnsTable
from tui.widgets.row_preview import RowPreview, table_cursor_key

if TYPE_CHECKING:
    from engine.events import ResearchUnitSummary

_STATUS_STYLE = {
    "queued": "dim",
    "running": "bold cyan",
    "completed": "green",
    "failed": "bold red",
    "timed_out": "bold red",
    "skipped": "yellow",
    "cancelled": "yellow",
    # The app's word for a unit of a run that ended without the engine closing it out.
    "stopped": "yellow",
}
# The topic takes what the fixed columns leave; a failure reason leads the topic cell, so it
# is visible at any width (the line under the table and Enter show the unit in full). In a
# half-width pane at 80 columns the columns stand one blank apart and the topic gets a word:
# the words the units' topics share give way first, so that rows stay told apart.
_COLUMNS = (
    ("Topic", "topic", 24),
    ("Status", "status", 9),
    ("Tools", "tools", 5),
    ("Ev.", "evidence", 3),
    ("Time", "time", 5),
)
_KEYS = tuple(key for _, key, _ in _COLUMNS)


def unit_title(topic: str) -> str:
    """A unit's topic as one line: the engine's rule (first line, without its label)."""
    from engine.progress_text import unit_title as engine_unit_title

    return engine_unit_title(topic)


def _running_since(unit: ResearchUnitSummary) -> float | None:
    return unit.started_at if unit.status == "running" and unit.started_at else None


def _time_of(unit: ResearchUnitSummary) -> str:
    """How long the unit took, or, while it runs, how long it has been running."""
    since = _running_since(unit)
    if since is not None and unit.duration_seconds is None:
        return format_running(time.time() - since)
    return format_duration(unit.duration_seconds)


class UnitsTable(FitColumnsTable):
    """Rows keyed by unit id, updated in place as the engine reports each unit."""

    flex_column = "topic"
    tighten = True
    min_flex_width = 8
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Unit details", id="units.open")
    ]

    class Opened(Message):
        def __init__(self, unit_id: str) -> None:
            super().__init__()
            self.unit_id = unit_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        # What each row shows now: a progress update repeats every unit, most unchanged.
        self._shown: dict[str, tuple[str, ...]] = {}
        self._units: dict[str, ResearchUnitSummary] = {}
        # How much of each unit's title it shares with another's (`DistinctTitle`).
        self._shared: dict[str, int] = {}

    def cells(self, unit: ResearchUnitSummary) -> tuple[DistinctTitle | Text | str, ...]:
        lead = Text()
        if unit.failure_reason:
            lead.append(one_line(unit.failure_reason, 80), style="red")
            lead.append(" · ", style="dim")
        title = unit_title(unit.topic)
        return (
            DistinctTitle(title, self._shared.get(unit.id, 0), lead),
            Text(unit_status_label(unit.status), style=_STATUS_STYLE.get(unit.status, "")),
            str(unit.tool_call_count),
            str(unit.evidence_count),
            _time_of(unit),
        )

    def on_mount(self) -> None:
        # A researcher on a slow model works for minutes before its first record: its time
        # running is the row's sign of life.
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        for unit in list(self._units.values()):
            if _running_since(unit) is not None:
                self.show_unit(unit)

    def show_units(self, units: list[ResearchUnitSummary]) -> None:
        for unit in units:
            self.show_unit(unit)

    def _share_titles(self) -> None:
        """Recount what the titles share; redraw the topics whose shared part changed."""
        titles = {key: unit_title(unit.topic) for key, unit in self._units.items()}
        shared = shared_prefix_lengths(titles)
        changed = [key for key, length in shared.items() if self._shared.get(key, 0) != length]
        self._shared = shared
        for key in changed:
            if key in self._shown:
                topic = self.cells(self._units[key])[0]
                self.update_cell(key, "topic", self.flex_cell(topic))

    @staticmethod
    def preview_text(unit: ResearchUnitSummary) -> Text:
        """The row in full: the unit's short name (the ledger's Unit column), failure reason,
        track title, then its figures."""
        text = Text(f"unit {unit_label(unit.id)} · ", style="dim")
        if unit.failure_reason:
            text.append(one_line(unit.failure_reason, 400), style="red")
            text.append(" · ", style="dim")
        text.append(unit_title(unit.topic), style="bold")
        figures = [
            unit_status_label(unit.status),
            counted(unit.tool_call_count, "tool call"),
            f"{unit.evidence_count} evidence",
        ]
        if unit.duration_seconds is not None:
            figures.append(format_duration(unit.duration_seconds))
        text.append(" · " + " · ".join(figures), style="dim")
        return text

    def show_unit(self, unit: ResearchUnitSummary) -> None:
        cells = self.cells(unit)
        plain = tuple(str(cell) for cell in cells)
        self._units[unit.id] = unit
        shown = self._shown.get(unit.id)
        if shown == plain:
            return
        self._shown[unit.id] = plain
        topic, *figures = cells
        values = (self.flex_cell(topic), *figures)
        if shown is None:
            self.add_row(*values, key=unit.id)
            self._share_titles()
            return
        for column, value, before, now in zip(_KEYS, values, shown, plain, strict=True):
            if before != now:
                self.update_cell(unit.id, column, value)
        if shown[0] != plain[0]:
            self._share_titles()
        if unit.id == table_cursor_key(self):
            self.update_preview()

    def clear(self, columns: bool = False) -> UnitsTable:
        self._shown.clear()
        self._units.clear()
        self._shared.clear()
        super().clear(columns)
        self.update_preview()
        return self

    def update_preview(self) -> None:
        """Show the unit under the cursor in full in the preview under the table."""
        if not isinstance(self.parent, UnitsPane):
            return
        key = table_cursor_key(self)
        unit = self._units.get(key) if key is not None else None
        self.parent.query_one(RowPreview).show(self.preview_text(unit) if unit else None)

    def on_data_table_row_highlighted(self, _: DataTable.RowHighlighted) -> None:
        self.update_preview()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # Enter and a mouse click both select the row under the cursor.
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))


class UnitsPane(Vertical):
    """The Research units pane: the table, and under it the highlighted unit in full."""

    ALLOW_MAXIMIZE = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "2 Research units"
        self._table: UnitsTable | None = None

    def compose(self) -> ComposeResult:
        # The table mounts after the first frame (`on_mount`), or as soon as something needs
        # it: laying out and styling an empty table first only delays the question bar.
        return iter(())

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_table)

    def _mount_table(self) -> None:
        if self.is_attached:  # not when the app quit before its second frame
            self.table  # noqa: B018 - the property mounts it

    @property
    def table(self) -> UnitsTable:
        """The table, mounted on first use."""
        if self._table is None:
            self._table = UnitsTable(id="units-table")
            self._table.add_fitted_columns(_COLUMNS)
            self.mount(self._table, RowPreview(id="units-preview"))
        return self._table

    def clear(self) -> None:
        if self._table is not None:
            self._table.clear()
