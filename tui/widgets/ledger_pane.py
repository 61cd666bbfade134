"""The Evidence ledger pane: every record, filtered by text and domain, sorted by column."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, Input, Select

from tui.presentation.formatting import counted, one_line, source_domain
from tui.presentation.labels import unit_label
from tui.presentation.narrow_text import SeparatorWrapped
from tui.view.throttle import Throttle
from tui.widgets.fit_columns import FitColumnsTable
from tui.widgets.row_preview import RowPreview, table_cursor_key

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord

_DOMAINS_WIDTH = 14
# The claim takes what the fixed columns leave. "Conf." is the confidence, marked "?" when the
# record notes a contradiction or uncertainty (Enter shows the note).
_COLUMNS = (
    ("Claim", "claim", 30),
    ("Domains", "domains", _DOMAINS_WIDTH),
    ("Unit", "unit", 4),
    ("Conf.", "uncertainty", 5),
)
ALL_DOMAINS = "__all__"
# Rebuilding the domain options or re-sorting 10,000 rows on every batch stalls the UI.
REFRESH_INTERVAL_SECONDS = 0.4
# Rows added before the message loop gets a turn (to draw, to take a key press).
ROWS_PER_SLICE = 50


def record_domains(record: EvidenceRecord) -> list[str]:
    return sorted({source_domain(url) for url in record.source_urls})


class LedgerTable(FitColumnsTable):
    flex_column = "claim"
    # At 80 columns the four panes leave the table 38 cells: the claim and the domains give
    # way so the unit and the confidence stay on screen (the line under the table has all).
    min_flex_width = 12
    shrinkable: ClassVar[dict[str, int]] = {"domains": 7}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Record", id="ledger.open"),
        Binding("s", "cycle_sort", "Sort", id="ledger.sort"),
    ]

    class SortRequested(Message):
        def __init__(self, column: str | None) -> None:
            super().__init__()
            self.column = column

    def action_cycle_sort(self) -> None:
        self.post_message(self.SortRequested(None))


class LedgerPane(Vertical):
    ALLOW_MAXIMIZE = True
    """Keeps every record; the table shows the ones matching both filters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="ledger.filter")
    ]

    class Opened(Message):
        def __init__(self, record_id: str) -> None:
            super().__init__()
            self.record_id = record_id

    def __init__(
        self, *, unit_title: Callable[[str], str] | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.border_title = "3 Evidence ledger"
        # A unit's title by its id, for the line under the table ("" when unknown).
        self._unit_title = unit_title or (lambda _: "")
        self._records: list[EvidenceRecord] = []
        self._domains: set[str] = set()
        self._text_filter = ""
        self._domain_filter: str = ALL_DOMAINS
        self._sort_column: str | None = None
        self._sort_reverse = False
        self._domains_of: dict[str, list[str]] = {}
        self._by_id: dict[str, EvidenceRecord] = {}
        # Bumped by clear(): a slice loop of an earlier session stops adding its rows.
        self._generation = 0
        self._table: LedgerTable | None = None
        self._select: Select[str] | None = None
        self._domain_refresh = Throttle(
            self, REFRESH_INTERVAL_SECONDS, self._refresh_domain_options
        )
        self._resort = Throttle(self, REFRESH_INTERVAL_SECONDS, self._sort_table)

    def compose(self) -> ComposeResult:
        # The filters and the table mount after the first frame (`on_mount`), or as soon as
        # something needs them: an empty ledger laid out first only delays the question bar.
        return iter(())

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_table)

    def _mount_table(self) -> None:
        if self.is_attached:  # not when the app quit before its second frame
            self.table  # noqa: B018 - the property mounts it

    @property
    def table(self) -> LedgerTable:
        """The table (with the filters above it), mounted on first use."""
        if self._table is None:
            self._table = LedgerTable(id="ledger-table", cursor_type="row", zebra_stripes=True)
            self._table.add_fitted_columns(_COLUMNS)
            self._select = Select[str](
                [], prompt="all domains", id="ledger-domain", allow_blank=True
            )
            filters = Horizontal(
                Input(placeholder="filter text", id="ledger-text"),
                self._select,
                id="ledger-filters",
            )
            self.mount(filters, self._table, RowPreview(id="ledger-preview"))
        return self._table

    @property
    def records(self) -> list[EvidenceRecord]:
        return list(self._records)

    def visible_ids(self) -> list[str]:
        table = self.table
        return [
            str(table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value)
            for row in range(table.row_count)
        ]

    # ---- data --------------------------------------------------------------------------

    async def add_records(self, records: list[EvidenceRecord]) -> None:
        """Add a batch in slices, yielding between them so a big batch never stalls the UI."""
        generation = self._generation
        for start in range(0, len(records), ROWS_PER_SLICE):
            if start:
                await asyncio.sleep(0)
                if generation != self._generation:
                    return
            self._add_slice(records[start : start + ROWS_PER_SLICE])

    def _add_slice(self, records: list[EvidenceRecord]) -> None:
        self._records.extend(records)
        table = self.table
        new_domains: set[str] = set()
        for record in records:
            self._by_id[record.id] = record
            domains = self._domains_of[record.id] = record_domains(record)
            new_domains.update(domains)
            if self._matches(record):
                table.add_row(*self._cells(record), key=record.id)
        new_domains -= self._domains
        if new_domains:
            self._domains |= new_domains
            self._domain_refresh.request()
        if self._sort_column is not None:
            self._resort.request()
        self.border_subtitle = counted(len(self._records), "record")

    def clear(self) -> None:
        self._generation += 1
        self._domains_of.clear()
        self._by_id.clear()
        self._records.clear()
        self._domains.clear()
        if self._table is not None:
            self._table.clear()
        self._domain_refresh.cancel()
        self._resort.cancel()
        self._refresh_domain_options()
        self.border_subtitle = ""
        self.update_preview()

    def _cells(self, record: EvidenceRecord) -> tuple[str, ...]:
        noted = "?" if record.contradiction_or_uncertainty else ""
        return (
            one_line(record.claim, 160),
            one_line(", ".join(self._domains_of[record.id]), _DOMAINS_WIDTH),
            unit_label(record.research_unit_id) if record.research_unit_id else "",
            f"{record.confidence:.2f}{noted}",
        )

    def _matches(self, record: EvidenceRecord) -> bool:
        if self._domain_filter != ALL_DOMAINS and self._domain_filter not in self._domains_of.get(
            record.id, ()
        ):
            return False
        if self._text_filter:
            unit = record.research_unit_id
            haystack = " ".join((record.claim, *record.source_urls, unit, unit_label(unit)))
            return self._text_filter in haystack.casefold()
        return True

    def _refresh_domain_options(self) -> None:
        select = self._select
        if select is None or not select.is_mounted:
            # Not drawn yet: it is given the options when it mounts.
            if select is not None and self._domains:
                select.call_after_refresh(self._refresh_domain_options)
            return
        current = self._domain_filter
        with self.prevent(Select.Changed):
            # A narrow list folds long names: at their dots and dashes, never mid-word.
            select.set_options(
                (SeparatorWrapped(domain), domain) for domain in sorted(self._domains)
            )
            if current != ALL_DOMAINS and current in self._domains:
                select.value = current

    def _rebuild(self) -> None:
        table = self.table
        table.clear()
        for record in self._records:
            if self._matches(record):
                table.add_row(*self._cells(record), key=record.id)
        self._resort.cancel()
        self._sort_table()
        shown = table.row_count
        total = len(self._records)
        self.border_subtitle = (
            f"{shown} of {counted(total, 'record')}" if shown != total else counted(total, "record")
        )
        self.update_preview()

    def _sort_table(self) -> None:
        if self._sort_column is not None:
            self.table.sort(self._sort_column, reverse=self._sort_reverse)
            self.update_preview()

    # ---- the highlighted record in full --------------------------------------------------

    def preview_text(self, record: EvidenceRecord) -> Text:
        """The row in full: the claim, then every domain, the unit and the confidence."""
        text = Text(one_line(record.claim, 2000))
        figures = [", ".join(self._domains_of.get(record.id, ())) or "no source"]
        if record.research_unit_id:
            unit = f"unit {unit_label(record.research_unit_id)}"
            title = self._unit_title(record.research_unit_id)
            figures.append(f"{unit}: {one_line(title, 80)}" if title else unit)
        figures.append(f"confidence {record.confidence:.2f}")
        if record.contradiction_or_uncertainty:
            figures.append("uncertain: " + one_line(record.contradiction_or_uncertainty, 400))
        text.append(" · " + " · ".join(figures), style="dim")
        return text

    def update_preview(self) -> None:
        if self._table is None:
            return
        key = table_cursor_key(self._table)
        record = self._by_id.get(key) if key is not None else None
        self.query_one(RowPreview).show(self.preview_text(record) if record else None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.update_preview()

    # ---- filters and sorting -------------------------------------------------------------

    def set_text_filter(self, text: str) -> None:
        self._text_filter = text.strip().casefold()
        self._rebuild()

    def set_domain_filter(self, domain: str | None) -> None:
        self._domain_filter = domain or ALL_DOMAINS
        self._rebuild()

    def sort_by(self, column: str) -> None:
        if self._sort_column == column:
            self._sort_reverse = not self._sort_reverse
        else:
            self._sort_column, self._sort_reverse = column, False
        self.table.sort(column, reverse=self._sort_reverse)
        self.update_preview()
        arrow = "↓" if self._sort_reverse else "↑"
        self.table.border_subtitle = f"sorted by {column} {arrow}"

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "ledger-text":
            event.stop()
            self.set_text_filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "ledger-text":
            event.stop()
            self.table.focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value
        self.set_domain_filter(value if isinstance(value, str) else None)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))

    def on_ledger_table_sort_requested(self, event: LedgerTable.SortRequested) -> None:
        event.stop()
        keys = [key for _, key, _ in _COLUMNS]
        current = self._sort_column
        if current is None:
            self.sort_by(keys[0])
        elif self._sort_reverse:
            self.sort_by(keys[(keys.index(current) + 1) % len(keys)])
        else:
            self.sort_by(current)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Opened(event.row_key.value))

    def action_focus_filter(self) -> None:
        self.table  # noqa: B018 - mounts the filters with the table
        self.query_one("#ledger-text", Input).focus()
