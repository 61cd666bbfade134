"""The help screen names every key a pane's footer shows, once: a key the footer offers and
the help leaves out (or names twice, two ways) leaves the reader guessing."""

from __future__ import annotations

import re

import pytest
from textual.binding import Binding
from textual.keys import key_to_character

from tui.screens.help import HELP_FILE
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane

_KEY = re.compile(r"`([^`]+)`")


def _table_keys(heading: str) -> list[str]:
    """The keys in the first column of the table under `heading`, in order."""
    text = HELP_FILE.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    keys: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.extend(_KEY.findall(line.split("|")[1]))
    return keys


def _footer_keys(bindings: list) -> list[str]:
    shown = [b for b in bindings if isinstance(b, Binding) and b.show]
    # "K/J" shows two keys as one entry; "enter,e" is one action on two keys.
    keys = [b.key_display or _printed(b.key.split(",")[0]) for b in shown]
    return [key for written in keys for key in written.split("/") if key]


def _printed(key: str) -> str:
    """A key as a person reads it: `slash` is `/`."""
    return {"slash": "/"}.get(key) or key_to_character(key) or key


@pytest.mark.parametrize(
    ("heading", "pane"),
    [("Plan pane", PlanPane), ("Report", ReportPane)],
)
def test_every_footer_key_of_a_pane_is_in_its_help_table_once(heading: str, pane: type) -> None:
    documented = _table_keys(heading)
    assert len(documented) == len(set(documented)), f"a key named twice under {heading}"
    named = " ".join(documented)
    for key in _footer_keys(pane.BINDINGS):
        assert re.search(rf"(?<![\w+]){re.escape(key)}(?![\w])", named, re.IGNORECASE), (
            f"{key} ({heading}) is not in the help"
        )
