"""Tables whose one flexible column takes the width the fixed columns leave.

DataTable columns are either measured from their contents (slow for big tables, and wider
than a pane) or fixed. Here every column is fixed, and on each resize the flexible one is given
what is left of the pane, so the table never scrolls sideways at the sizes the app supports
and no cell is ever measured to lay the table out.

A table that opts in (`tighten`) sets its columns one blank apart instead of two when the
flexible column would otherwise get less than `MIN_FLEX_WIDTH`: every column stays on screen in
a half-width pane at 80 columns, and the flexible one keeps a few more characters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import CellKey, RowKey

# Below this the flexible column stops shrinking and the table scrolls sideways instead.
MIN_FLEX_WIDTH = 16


class FlexCell:
    """A cell of the flexible column. While the table is tight, the blank that separates the
    column from the next is the cell's own last character (there is no cell padding then)."""

    def __init__(self, content: RenderableType, table: FitColumnsTable) -> None:
        self.content = content
        self.table = table

    def __str__(self) -> str:
        return str(self.content)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Padding(self.content, (0, 1, 0, 0)) if self.table.tight else self.content


class FitColumnsTable(DataTable[Any]):
    """A DataTable with fixed-width columns plus one flexible column (`flex_column`)."""

    DEFAULT_CSS = """
    FitColumnsTable.-tight {
        padding-left: 1;
    }
    """

    # These tables move a row cursor and fit their width: Home and End go to the first and
    # last row (DataTable's own Home/End scroll sideways, which moves nothing here).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    flex_column = ""
    # The flexible column's narrowest width, and fixed columns that may narrow (key: their
    # narrowest width) so that a narrow pane shows every column rather than scroll sideways.
    min_flex_width = MIN_FLEX_WIDTH
    shrinkable: ClassVar[dict[str, int]] = {}
    # Set columns one blank apart when the flexible column would get less than MIN_FLEX_WIDTH
    # (its cells then go through `flex_cell`); `min_flex_width` is its narrowest width then.
    tighten = False
    # Whether the columns stand one blank apart now (no cell padding; the table's left margin,
    # class `-tight`, stands in for the first column's).
    tight = False
    # The width the columns were last fit to (0: never).
    _fitted_width = 0

    def add_fitted_columns(self, columns: tuple[tuple[str, str, int], ...]) -> None:
        """Add (label, key, width) columns; the flexible column's width is a starting guess."""
        self._nominal: dict[str, int] = {}
        self._padding = self.cell_padding  # what a tight layout gives back when it ends
        for label, key, width in columns:
            self.add_column(label, key=key, width=width)
            self._nominal[key] = width
        self.fit_columns()

    # DataTable measures every new or updated cell when it is idle, to size auto-width columns
    # and auto-height rows. Here every column has a fixed width and every row is one line, so
    # that work (most of the time spent adding 10,000 ledger rows) is skipped: only the
    # scrollable size follows the rows. These override private hooks of the pinned Textual.

    def _update_column_widths(self, updated_cells: set[CellKey]) -> None:
        self._require_update_dimensions = True

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width, self._total_row_height + header)

    def on_resize(self, _: events.Resize) -> None:
        self.fit_columns()

    def render_lines(self, crop: Region) -> list[Strip]:
        # A Resize event is not the only way the width changes: a pane unzoomed (F10) may be
        # laid out again at its old width without one, and would keep the zoomed columns, the
        # flexible one pushing the rest off screen. Every frame checks the width it was fit to.
        if self.size.width != self._fitted_width:
            self.fit_columns()
        return super().render_lines(crop)

    def flex_cell(self, content: RenderableType) -> FlexCell:
        """`content` as a cell of the flexible column of a table that may tighten."""
        return FlexCell(content, self)

    def fit_columns(self) -> None:
        flex = self.columns.get(self.flex_column)  # type: ignore[call-overload]
        if flex is None or not self.size.width:
            return
        self._fitted_width = self.size.width
        # The width the columns share: the table's, without the tight layout's left margin,
        # less room for a vertical scrollbar, always kept so rows arriving never re-flow it.
        room = self.size.width - self.styles.scrollbar_size_vertical
        if self.tight:
            room += self.styles.padding.left
        widths, available = self._fitted_widths(flex, room, gap=2 * self._padding)
        tight = self.tighten and available < MIN_FLEX_WIDTH
        if tight:
            # One blank after each column but the last (the scrollbar's room follows it); the
            # flexible column's cells leave their own (`FlexCell`), within its width.
            widths, available = self._fitted_widths(flex, room - 1, gap=0)
            last = str(list(self.columns)[-1].value)
            widths = {key: width + (key != last) for key, width in widths.items()}
            available -= len(widths) - (last in widths)
        changed = tight != self.tight
        if changed:
            self.tight = tight
            self.set_class(tight, "-tight")
            self.cell_padding = 0 if tight else self._padding
        for column in self.columns.values():
            width = widths.get(str(column.key.value), max(self.min_flex_width, available))
            if column.width != width:
                column.width = width
                changed = True
        if changed:
            # DataTable has no public way to re-lay out after a width change: clear its
            # render caches and ask for the virtual size to be computed again.
            self._clear_caches()
            self._require_update_dimensions = True
            self.refresh()

    def _fitted_widths(self, flex: Any, room: int, *, gap: int) -> tuple[dict[str, int], int]:
        """The fixed columns' widths, and what they leave the flexible one, with `gap` blanks
        around each column: shrinkable columns narrow while it would get less than
        `min_flex_width`."""
        # The widths columns were added with: a narrowed column widens again with the pane.
        nominal: dict[str, int] = getattr(self, "_nominal", {})
        widths = {
            str(column.key.value): nominal.get(str(column.key.value), column.width)
            for column in self.columns.values()
            if column is not flex
        }
        available = room - sum(width + gap for width in widths.values()) - gap
        short = self.min_flex_width - available
        for key, narrowest in self.shrinkable.items():
            if short <= 0 or key not in widths:
                continue
            given = max(0, min(short, widths[key] - narrowest))
            widths[key] -= given
            available += given
            short -= given
        return widths, available
