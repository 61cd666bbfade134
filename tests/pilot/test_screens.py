"""Sessions, settings, help, the command palette, and the first frame without LangChain."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from textual.widgets import Input, Markdown, Static

from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    SESSION_ID,
    ScriptedDriver,
    full_story,
    report_event,
    research_finished,
    settle,
)
from tests.pilot.test_run_paths import plain
from tui.screens.help import HelpScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.settings import SettingsScreen
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.units_table import UnitsTable

ROOT = Path(__file__).resolve().parents[2]


def saved_sessions() -> list[SessionInfo]:
    return [
        SessionInfo(
            session_id="done-1",
            question="What is PEP 492?",
            created_at="2025-01-02T10:00:00",
            updated_at="2025-01-02T10:05:00",
            status="completed",
            mode="deep",
        ),
        SessionInfo(
            session_id="half-1",
            question="How does asyncio schedule coroutines?",
            created_at="2025-01-03T09:00:00",
            updated_at="2025-01-03T09:02:00",
            status="interrupted",
        ),
    ]


async def test_sessions_reopen_a_finished_report(tmp_path: Path) -> None:
    app, backend = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=saved_sessions(),
        reports={"done-1": report_event()},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        # Newest first: the interrupted run, then the finished one.
        assert [info.session_id for info in app.screen.sessions] == ["half-1", "done-1"]
        await pilot.press("down", "enter")
        await settle(pilot)
        report = app.screen.query_one(ReportPane)
        assert report.report == report_event()
        assert backend.opened == []  # reading a report opens no engine session


async def test_sessions_resume_an_interrupted_run(tmp_path: Path) -> None:
    interrupted = ScriptedDriver({"resume": [research_finished()]}, session_id="half-1")
    app, backend = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=saved_sessions(),
        saved={"half-1": interrupted},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f2")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert backend.opened == ["half-1"]
        assert interrupted.calls == [("resume", None)]
        assert app.screen.query_one(UnitsTable).row_count == 3
        assert app.screen.query_one(ReportPane).report is not None


async def test_settings_shows_doctor_and_writes_env_owner_only(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("# mine\nDATA_DIR=/tmp/x\nOPENAI_API_KEY=old\n", encoding="utf-8")
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        assert "offline (built-in)" in plain(app.screen.query_one("#doctor-report", Static))
        key_input = app.screen.query_one("#setup-OPENAI_API_KEY", Input)
        assert key_input.password  # masked on screen
        key_input.value = "sk-test-123"
        app.screen.query_one("#setup-ORCHESTRATOR_MODEL", Input).value = "gpt-4.1-mini"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert stat.S_IMODE(os.stat(env).st_mode) == 0o600
        lines = env.read_text(encoding="utf-8").splitlines()
        assert lines == [
            "# mine",
            "DATA_DIR=/tmp/x",
            "OPENAI_API_KEY=sk-test-123",
            "ORCHESTRATOR_MODEL=gpt-4.1-mini",
        ]
        result = plain(app.screen.query_one("#setup-result", Static))
        assert "mode 0600" in result and "sk-test-123" not in result
        assert key_input.value == ""  # the key does not linger on screen
        assert backend.reloads == 1


async def test_help_screen_renders_help_markdown(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        source = app.screen.query_one(Markdown).source
        assert "## Plan pane" in source and "ctrl+x" in source
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_every_action_is_in_the_command_palette(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for expected in (
            "Help",
            "Sessions",
            "Settings",
            "New session",
            "Toggle research mode",
            "Resume run",
        ):
            assert expected in titles
        # Approving from the palette does what `y` does in the Plan pane.
        app.screen.query_one("#question", Input).value = "q"
        app.screen.query_one("#question", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for expected in (
            "Approve plan",
            "Revise plan",
            "Cancel plan",
            "Edit plan track",
            "Add plan track",
            "Delete plan track",
        ):
            assert expected in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Approve plan")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert [d.action for d in driver.decisions()] == ["approve"]
        assert not app.screen.query_one(PlanPane).reviewing
        assert app.screen.view.session_id == SESSION_ID  # type: ignore[attr-defined]
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Verification audit", "Export report", "Copy report"} <= titles


FIRST_FRAME_PROBE = """
import json, sys
from tui.app import DeepResearchApp

HEAVY = ("langchain", "langgraph", "deepagents", "httpx", "trafilatura", "exa_py")
# Not heavy, but not needed to draw the question bar: they load after the first frame.
DEFERRED = ("engine", "pydantic", "markdown_it", "dotenv")

class Probe(DeepResearchApp):
    def on_mount(self):
        self.call_after_refresh(self.report)

    def report(self):
        roots = {name.split(".")[0] for name in sys.modules}
        print(json.dumps({
            "heavy": sorted(r for r in roots if r.startswith(HEAVY)),
            "deferred": sorted(r for r in roots if r in DEFERRED),
            "screen": type(self.screen).__name__,
        }))
        self.exit(0)

Probe().run(headless=True, size=(120, 36))
"""


def test_first_frame_is_drawn_before_the_engine_stack_is_imported() -> None:
    # The real backend (no fakes): the app as `deepresearch` launches it.
    result = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["screen"] == "ResearchScreen"
    assert report["heavy"] == []
    assert report["deferred"] == []
