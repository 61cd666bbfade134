"""Lines that wrap with a hanging indent: a line's continuations start under its text, not
at the left edge, so a wrapped field ("queries a | b | …") still reads as one field."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

# Below this many columns beside its lead, a line wraps under the lead instead: a hanging
# indent that leaves a word or two per line reads worse than none.
MIN_HANGING_WIDTH = 12


class HangingLines(Widget):
    """Each line is a lead ("   queries ") and a body; the body wraps beside the lead."""

    DEFAULT_CSS = """
    HangingLines {
        height: auto;
    }
    """

    def __init__(
        self,
        lines: list[tuple[Text, Text]],
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._lines = self._contents(lines)
        self._laid_out: tuple[int, Content] | None = None

    @staticmethod
    def _contents(lines: list[tuple[Text, Text]]) -> list[tuple[Content, Content]]:
        return [
            (Content.from_rich_text(lead), Content.from_rich_text(body)) for lead, body in lines
        ]

    def update(self, lines: list[tuple[Text, Text]]) -> None:
        """Show `lines` instead; the widget's height follows them."""
        self._lines = self._contents(lines)
        self._laid_out = None
        self.refresh(layout=True)

    @property
    def plain(self) -> str:
        """The lines unwrapped, as plain text."""
        return "\n".join(lead.plain + body.plain for lead, body in self._lines)

    def laid_out(self, width: int) -> Content:
        """The lines wrapped to `width`, each continuation indented as far as its lead."""
        if self._laid_out is not None and self._laid_out[0] == width:
            return self._laid_out[1]
        rows: list[Content] = []
        for lead, body in self._lines:
            indent = lead.cell_length
            if width - indent < MIN_HANGING_WIDTH:
                rows.extend((lead + body).wrap(max(width, 1)))
                continue
            for number, line in enumerate(body.wrap(width - indent)):
                rows.append((lead if number == 0 else Content(" " * indent)) + line)
        content = Content("\n").join(rows)
        self._laid_out = (width, content)
        return content

    def render(self) -> Content:
        return self.laid_out(self.size.width)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return max((lead.cell_length + body.cell_length for lead, body in self._lines), default=0)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.laid_out(width).plain.split("\n")) if width else 0
