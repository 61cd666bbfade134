"""What the app leaves out of its first frame: detail screens it has not opened, the empty
units and ledger tables (they mount right after it), and restyling every widget whenever the
focus moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, count_restyles, press_and_settle

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from tui.app import DeepResearchApp

class Probe(DeepResearchApp):
    def on_mount(self):
        self.call_after_refresh(self.report)

    def report(self):
        self.first = {
            "modules": sorted(name for name in sys.modules if name.startswith("tui.")),
            "tables": len(self.screen.query("DataTable")),
            "question": self.screen.focused.id,
        }
        self.set_timer(0.5, self.later)

    def later(self):
        print(json.dumps({**self.first, "tables_later": len(self.screen.query("DataTable"))}))
        self.exit(0)

Probe().run(headless=True, size=(120, 36))
"""

# Opened by a key or an event once a session runs: none is needed to draw the question bar.
DETAIL_SCREENS = (
    "tui.screens.audit",
    "tui.screens.citation_detail",
    "tui.screens.feedback",
    "tui.screens.record_detail",
    "tui.screens.unit_detail",
    "tui.screens.detail",
)


def first_frame(tmp_path: Path) -> dict[str, Any]:
    # Its own data folder and a one-note documents folder: the app indexes documents as it
    # starts, and must neither write into the person's data folder nor index the samples.
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "note.md").write_text("# Note\n\nOne line.\n", encoding="utf-8")
    env_file = tmp_path / "empty.env"
    env_file.write_text("", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DATA_DIR": str(tmp_path / "data"),
            "DOCUMENTS_PATH": str(documents),
            "DEEPRESEARCH_ENV_FILE": str(env_file),
        },
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_detail_screens_load_when_first_opened_not_before_the_first_frame(tmp_path: Path) -> None:
    loaded = set(first_frame(tmp_path)["modules"])
    assert "tui.screens.research" in loaded
    assert loaded.isdisjoint(DETAIL_SCREENS), sorted(loaded & set(DETAIL_SCREENS))


def test_the_empty_tables_mount_just_after_the_first_frame(tmp_path: Path) -> None:
    frame = first_frame(tmp_path)
    assert frame["question"] == "question"  # the question bar is ready to type in
    assert frame["tables"] == 0
    assert frame["tables_later"] == 2  # units and ledger


async def test_pane_keys_right_after_start_reach_the_tables(tmp_path: Path) -> None:
    # Before the tables have mounted on their own, a pane key mounts and focuses them.
    from textual.widgets import DataTable

    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        # (The digit keys type into the question bar, which has the focus at start.)
        app.research.action_focus_pane(2)
        await pilot.pause()
        assert isinstance(app.screen.focused, DataTable)
        assert app.screen.focused.id == "units-table"
        app.research.action_focus_pane(3)
        await pilot.pause()
        assert app.screen.focused is not None and app.screen.focused.id == "ledger-table"


async def test_a_focus_move_restyles_the_panes_it_touches_not_every_widget(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        restyled = count_restyles(app)
        report = app.screen.query_one("#report")
        everything = len(list(app.screen.walk_children(with_self=True)))
        await press_and_settle(pilot, "ctrl+l")  # report pane → question bar
        await press_and_settle(pilot, "4")  # and back
        assert restyled, "the focus moved"
        # The report pane's own widgets (its border shows the focus), never the whole screen.
        pane = len(list(report.walk_children(with_self=True)))
        assert max(restyled) <= pane + 2 < everything, (restyled, pane, everything)
