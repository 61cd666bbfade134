"""Text for cells narrower than what they hold, cut where it keeps its meaning.

Two cuts a plain ellipsis gets wrong. Rows whose titles share a beginning (`asyncio schedule
…: overview`, `…: how it works`) all read the same once cut at the end: `DistinctTitle` drops
the shared part first, keeping what tells each row apart. A name with no spaces (a domain, a
file name) is folded by Rich mid-word: `SeparatorWrapped` breaks it after a `.`, `-`, `/`
or `_` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

SEPARATORS = frozenset(" .-/_:,;·–—")


def shared_prefix_lengths(titles: Mapping[str, str]) -> dict[str, int]:
    """For each title (by key), how much of its start it shares with another title, cut back
    to the last separator so that no word is split (0: nothing shared)."""
    shared: dict[str, int] = {}
    items = list(titles.items())
    for key, title in items:
        longest = 0
        for other_key, other in items:
            if other_key != key:
                longest = max(longest, _common_start(title, other))
        shared[key] = longest
    return shared


def _common_start(first: str, second: str) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    if length == len(first):
        return 0  # a title never gives way whole
    return max((i + 1 for i in range(length) if first[i] in SEPARATORS), default=0)


def _distinct_part(title: str, shared: int) -> str:
    return title[shared:].lstrip("".join(SEPARATORS))


class DistinctTitle:
    """`lead` then `title`; when they do not fit, the part of the title shared with other
    rows gives way first (shown as a leading `…`), then the end is cut."""

    def __init__(self, title: str, shared: int, lead: Text | None = None) -> None:
        self.title = title
        self.shared = shared
        self.lead = lead or Text()

    def __str__(self) -> str:
        return self.lead.plain + self.title

    def text(self, width: int) -> Text:
        full = self.lead.copy()
        full.append(self.title)
        rest = _distinct_part(self.title, self.shared)
        if self.shared and rest and cell_len(full.plain) > width:
            full = self.lead.copy()
            # The leading ellipsis says something was left out, when there is room for it.
            room = width - self.lead.cell_len
            full.append(("…" + rest) if cell_len(rest) < room else rest)
        full.no_wrap = True
        full.overflow = "ellipsis"
        full.truncate(width, overflow="ellipsis")
        return full

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text(options.max_width)


def wrap_at_separators(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken after a separator where one is in
    reach (mid-word only for a run without any)."""
    if width <= 0:
        return [text]
    lines: list[str] = []
    rest = text
    while cell_len(rest) > width:
        head = rest[:width]
        cut = max((i + 1 for i, char in enumerate(head) if char in SEPARATORS), default=width)
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    lines.append(rest)
    return lines


class SeparatorWrapped:
    """A name with no spaces, wrapped at its separators to whatever width it is given."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(wrap_at_separators(self.text, options.max_width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        parts: Iterable[str] = wrap_at_separators(self.text, 1) if self.text else [""]
        longest_part = max((cell_len(part) for part in parts), default=0)
        return Measurement(longest_part, cell_len(self.text))


class KeptEnd:
    """`text` then `end`, the text cut (with an ellipsis) so that `end` always shows."""

    def __init__(self, text: str, end: Text) -> None:
        self.text = text
        self.end = end

    def __str__(self) -> str:
        return self.text + self.end.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        room = max(width - self.end.cell_len, 1)
        shown = Text(self.text, no_wrap=True, overflow="ellipsis")
        shown.truncate(room, overflow="ellipsis")
        shown.append_text(self.end)
        shown.truncate(width, overflow="ellipsis")
        yield shown
