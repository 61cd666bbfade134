"""What the walk found in the app's readouts: the gate line says what the gate last decided,
unit counts grow as their events arrive, the help says where keys work, Settings show the
model profile, and a run the app stopped says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input

from engine.events import (
    Event,
    PhaseChanged,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RouteDecided,
    RunFinished,
    SessionStarted,
    ToolCalled,
)
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    progress,
    report_event,
    research_running,
    settle,
    unit,
)
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_elapsed import Clock, app_with, header_text
from tests.pilot.test_walk_defects import start_research
from tui.widgets.units_table import UnitsTable

# ---- the gate line says what the gate last decided -----------------------------------------


def ending() -> list[Event]:
    return [
        PhaseChanged(phase="writing"),
        PhaseChanged(phase="verifying"),
        report_event(),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID),
    ]


async def test_a_run_with_no_evidence_says_so_not_not_checked_yet(tmp_path: Path) -> None:
    empty = progress(unit(1), records=0, domains=0, status="none")
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[empty, *ending()]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot)
        assert "not checked yet" not in header_text(app)
        await press_and_settle(pilot, "y")
        line = header_text(app)
        assert "research ended with no evidence" in line and "not checked yet" not in line, line


async def test_the_gate_line_keeps_its_last_decision(tmp_path: Path) -> None:
    rejected = progress(unit(1), records=2, domains=1, status="retry")
    later = progress(unit(1), unit(2), records=2, domains=1, status="none")
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[rejected, later, *ending()]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        line = header_text(app)
        # Research is over: the rejection is final, research ended without passing it.
        assert "not passed (need 2 more domains)" in line and "not checked" not in line, line


async def test_a_finished_run_shows_no_model_call_still_going(tmp_path: Path) -> None:
    from engine.events import ModelCallProgress

    writing = ModelCallProgress(role="writer", state="generating", output_tokens=2303)
    story = [PhaseChanged(phase="writing"), writing, *ending()[1:]]
    driver = ScriptedDriver({"start": [opening()], "review_plan": [story]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        line = header_text(app)
        assert "done" in line and "writing…" not in line and "2303" not in line, line


# ---- a unit's counts grow as its events arrive -------------------------------------------


def quick_unit(status: str = "running", **extra: Any) -> ResearchUnitSummary:
    return ResearchUnitSummary(id="quick-1", topic=QUESTION, status=status, **extra)  # type: ignore[arg-type]


def quick_call(call_id: str, status: str) -> ToolCalled:
    return ToolCalled(tool="search_web", call_id=call_id, unit_id="quick-1", status=status)  # type: ignore[arg-type]


async def test_quick_units_tool_count_grows_as_calls_arrive(tmp_path: Path) -> None:
    hold = Hold()
    steps = [
        SessionStarted(session_id=SESSION_ID, question=QUESTION),
        RouteDecided(mode="quick", reason="a lookup"),
        PhaseChanged(phase="quick_research"),
        ResearchUnitUpdated(unit=quick_unit()),
        quick_call("c1", "started"),
        quick_call("c1", "succeeded"),
        quick_call("c2", "started"),
        hold,
        quick_call("c2", "succeeded"),
        ResearchUnitUpdated(unit=quick_unit("completed", tool_call_count=2)),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID),
    ]
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [steps]}))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.screen.query_one("#question", Input).value = QUESTION
        app.screen.query_one("#question", Input).focus()
        await pilot.press("enter")
        await hold.reached.wait()
        await pilot.pause(0.2)
        table = app.screen.query_one(UnitsTable)
        assert str(table.get_cell("quick-1", "tools")) == "2"  # c1 done, c2 under way
        hold.release.set()
        await settle(pilot)
        assert str(table.get_cell("quick-1", "tools")) == "2"


# ---- the help says where keys work ------------------------------------------------------


def help_section_keys(title: str) -> list[str]:
    from tui.screens.help import HELP_FILE

    text = HELP_FILE.read_text(encoding="utf-8")
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [key for row in rows for key in row.split("|")[1].split("`")[1::2]]


async def test_every_key_the_help_lists_everywhere_acts_from_the_question_bar(
    tmp_path: Path,
) -> None:
    keys = help_section_keys("Everywhere")
    assert "ctrl+x" in keys and "F2" in keys
    typed = [key for key in keys if len(key) == 1 and key.isprintable()]
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        question = app.screen.query_one("#question", Input)
        for key in typed:
            question.value = ""
            question.focus()
            await pilot.press(key)
            await pilot.pause()
            # A key listed as working everywhere would be typed into the question instead.
            assert question.value == "", f"{key!r} is listed under Everywhere but types"


# ---- settings show the detected model profile ---------------------------------------------


async def test_settings_show_the_detected_model_profile(tmp_path: Path) -> None:
    from tui.link.backend import ModelProfileRow
    from tui.screens.settings import SettingsScreen

    rows = [
        ModelProfileRow(
            role=role,
            model="qwen2.5-7b",
            endpoint="127.0.0.1:8080",
            context_window=32768,
            tool_calling="prompted",
            structured_output="json_object",
            source="detected",
            detected_at=1_800_000_000.0,
        )
        for role in ("orchestrator", "researcher", "planner", "writer")
    ]
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), profiles=rows)
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "f3")
        assert isinstance(app.screen, SettingsScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = str(app.screen.query_one("#model-profile").render())
        assert "qwen2.5-7b at 127.0.0.1:8080" in shown and "every role" in shown
        assert "context window 32,768 tokens" in shown
        assert "tool calling prompted" in shown and "structured output json_object" in shown
        assert "detected" in shown


def test_the_engine_backend_reads_the_profile_cache(tmp_path: Path) -> None:
    from engine.config import settings_from_mapping
    from engine.models.compat.profile import ModelProfile, cache_key, store_detected
    from tui.link.engine_backend import EngineBackend

    settings = settings_from_mapping(
        {
            "DATA_DIR": str(tmp_path),
            "ORCHESTRATOR_BASE_URL": "http://127.0.0.1:8080/v1",
            "ORCHESTRATOR_MODEL": "qwen2.5-7b",
        }
    )
    backend = EngineBackend(settings, cwd=tmp_path)
    assert {row.source for row in backend.model_profiles()} == {"not detected yet"}
    detected = ModelProfile(settings.model_max_input_tokens, "prompted", "json_object", "detected")
    store_detected(settings, cache_key("http://127.0.0.1:8080/v1", "qwen2.5-7b"), detected)
    rows = backend.model_profiles()
    assert {(row.tool_calling, row.structured_output, row.source) for row in rows} == {
        ("prompted", "json_object", "detected")
    }
    assert all(row.detected_at is not None for row in rows)
    offline = EngineBackend(settings_from_mapping({"DATA_DIR": str(tmp_path)}), cwd=tmp_path)
    assert offline.model_profiles() == []


class DeafDriver(ScriptedDriver):
    """An engine that does not wind down when asked: the app stops its worker."""

    async def cancel(self) -> None:
        self.cancelled += 1


async def test_a_run_stopped_by_the_app_no_longer_says_researching(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import tui.link.engine_link

    monkeypatch.setattr(tui.link.engine_link, "CANCEL_GRACE_SECONDS", 0.1)
    clock = Clock()
    hold = Hold()
    driver = DeafDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app = app_with(tmp_path, driver, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await start_research(pilot, hold)
        clock.now += 20
        await pilot.press("ctrl+x")
        for _ in range(50):
            await pilot.pause(0.05)
            if not app.link.running:
                break
        await pilot.pause(0.1)
        assert not app.link.running and driver.cancelled == 1
        line = header_text(app)
        assert "phase cancelled" in line and "researching" not in line, line
        clock.now += 100
        await pilot.pause(1.2)
        assert "elapsed 0:20" in header_text(app), header_text(app)
