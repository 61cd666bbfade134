"""The highlighted row of a table in full, under the table.

Table columns are cut to fit their pane (a claim to a few words at 80×24). The preview shows
the row the cursor is on without opening a modal: wrapped to the preview's width, on as many
lines as its `max-height` allows (two in a pane, more when the pane is zoomed), the last one
ending in an ellipsis when even that is not enough. It takes no focus and no keys.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

DEFAULT_LINES = 2


class RowPreview(Static):
    """Hidden (class `-empty`) while there is no row to show."""

    DEFAULT_CSS = """
    RowPreview {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $boost;
        color: $text-muted;
    }
    RowPreview.-empty {
        display: none;
    }
    .-maximized RowPreview {
        max-height: 6;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="-empty", markup=False)
        self.text = Text()

    def show(self, text: Text | None) -> None:
        """Show `text` (a row in full), or hide the preview when there is no row."""
        self.text = text if text is not None else Text()
        self.set_class(text is None or not text.plain, "-empty")
        self.update(self.text)

    @property
    def plain(self) -> str:
        return self.text.plain

    def _line_budget(self) -> int:
        scalar = self.styles.max_height
        if scalar is None or not scalar.is_cells:
            return DEFAULT_LINES
        return max(1, int(scalar.value))

    def render(self) -> RenderableType:
        width = self.content_region.width or self.size.width
        if width <= 0 or not self.text.plain:
            return self.text
        lines = self.text.wrap(self.app.console, width)
        budget = self._line_budget()
        if len(lines) <= budget:
            return self.text
        kept = list(lines)[:budget]
        last = kept[-1]
        last.rstrip()
        if last.cell_len >= width:
            last.truncate(width - 1)
        last.append("…")
        return Text("\n").join(kept)


def table_cursor_key(table: Widget) -> str | None:
    """The key of the row under a DataTable's cursor (None when it has no rows)."""
    from textual.coordinate import Coordinate
    from textual.widgets import DataTable

    assert isinstance(table, DataTable)
    if not table.row_count:
        return None
    row = min(max(table.cursor_row, 0), table.row_count - 1)
    key = table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
    return None if key is None else str(key)
