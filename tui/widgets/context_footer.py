"""A footer that shows what acts here: the focused pane's keys first, then a few global ones.

Textual's Footer lists every active binding (app, screen, focused widget) and overflows at
80 columns, cutting off whatever comes last — at plan review, the approve key. This one shows
the focused pane's own keys in their declared (importance) order, then only the global keys
that matter everywhere: cancel while a run goes, resume when there is something to resume,
zoom, help. With the question input focused, where no pane keys apply, the app's keys show.

On a screen of its own (settings, sessions) the screen's keys are "here" too: they come first,
and the app's keys for opening other screens give way to them. Whatever still does not fit
goes from the end, help excepted, so no key is ever cut in half.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Global keys kept in every context, in this order, after the pane's own.
ALWAYS = ("app.cancel_run", "app.resume", "research.pane", "research.ask", "app.zoom", "app.help")
# What goes, in this order, when the keys do not fit the width: the panes' titles carry their
# digits; while a report search is on, the line under the report says "/ new search"; the
# question bar is a click or shift+tab away (F1 lists ctrl+l) while a plan's keys need the room.
SPARE = ("research.pane", "report.search", "research.ask")

_Entry = tuple[Binding, bool, str]


class ContextFooter(Footer):
    def __init__(
        self, *, screen_keys_here: bool = False, compact: bool = False, id: str | None = None
    ) -> None:
        super().__init__(id=id, compact=compact)
        # True on a screen whose own keys are its actions (settings, sessions); the research
        # screen's own keys (pane jumps, ask) are global there.
        self.screen_keys_here = screen_keys_here

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        focused = self.screen.focused
        # The focused widget and its ancestors up to the screen: "here".
        here: set[DOMNode] = {self.screen} if self.screen_keys_here else set()
        node: DOMNode | None = focused
        while node is not None and node is not self.screen:
            here.add(node)
            node = node.parent
        local, always, general = [], {}, []
        seen_actions: set[str] = set()
        for namespace, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen_actions:
                continue
            seen_actions.add(binding.action)
            entry = (binding, enabled, tooltip)
            if namespace in here:
                local.append(entry)
            elif binding.id in ALWAYS:
                always[binding.id] = entry
            else:
                general.append(entry)
        ordered = local + [always[key] for key in ALWAYS if key in always]
        if not local:
            # Nothing specific here (the question input): the app's keys are what acts.
            ordered = [*ordered[:-1], *general, *ordered[-1:]] if ordered else general
        ordered = self._fitted(ordered)
        self.styles.grid_size_columns = len(ordered)
        for binding, enabled, tooltip in ordered:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)

    def on_resize(self) -> None:
        # What fits depends on the width.
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)

    def _fitted(self, entries: list[_Entry]) -> list[_Entry]:
        """`entries` without the spare ones while they would overflow the footer's width."""
        width = self.size.width or self.screen.size.width

        def needed(kept: list[_Entry]) -> int:
            # A compact key is "key description" and one column of margin after it.
            return sum(
                cell_len(self.app.get_key_display(binding)) + cell_len(binding.description) + 2
                for binding, _, _ in kept
            )

        for spare in SPARE:
            if needed(entries) - 1 <= width:
                return entries
            entries = [entry for entry in entries if entry[0].id != spare]
        # Still too wide: drop from the end, keeping the last key (help).
        while len(entries) > 2 and needed(entries) - 1 > width:
            del entries[-2]
        return entries
