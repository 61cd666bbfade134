"""The settings screen: what ctrl+s did is in sight, fields show what is saved, a value can be
removed, and a saved endpoint is checked at once (issue 37, item 4)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Label, Static

from engine.config import Settings
from engine.doctor import collect_report_async
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, settle
from tests.pilot.test_plan_review import screen_lines
from tests.pilot.test_run_paths import plain
from tui.screens.settings import SettingsScreen

SAVED = (
    "# mine\n"
    "OPENAI_API_KEY=sk-secret-value\n"
    "ORCHESTRATOR_BASE_URL=http://127.0.0.1:9/v1\n"
    'ORCHESTRATOR_MODEL="qwen 7b"\n'
)


def field(app: object, name: str) -> Input:
    return app.screen.query_one(f"#setup-{name}", Input)  # type: ignore[attr-defined]


def label(app: object, name: str) -> str:
    return plain(app.screen.query_one(f"#label-{name}", Label))  # type: ignore[attr-defined]


async def test_saved_line_is_in_sight_at_80x24(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        field(app, "BUDGET_TOKENS").value = "200000"
        await pilot.press("ctrl+s")
        await settle(pilot)
        shown = "\n".join(screen_lines(app))
        assert "BUDGET_TOKENS" in shown and "0600" in shown


async def test_fields_show_saved_values_and_keys_only_as_set(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(SAVED, encoding="utf-8")
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert field(app, "ORCHESTRATOR_BASE_URL").value == "http://127.0.0.1:9/v1"
        assert field(app, "ORCHESTRATOR_MODEL").value == "qwen 7b"
        assert field(app, "OPENAI_API_KEY").value == ""
        assert label(app, "OPENAI_API_KEY").endswith(" set")
        assert label(app, "EXA_API_KEY").endswith("not set")
        assert "sk-secret-value" not in "\n".join(screen_lines(app))
        field(app, "ORCHESTRATOR_MODEL").value = "qwen 14b"
        await pilot.press("ctrl+s")
        await settle(pilot)
        # After saving, the form still shows every saved setting, the one changed included.
        assert field(app, "ORCHESTRATOR_BASE_URL").value == "http://127.0.0.1:9/v1"
        assert field(app, "ORCHESTRATOR_MODEL").value == "qwen 14b"
        assert label(app, "OPENAI_API_KEY").endswith(" set")
        text = (tmp_path / ".env").read_text(encoding="utf-8")
        assert "OPENAI_API_KEY=sk-secret-value" in text
        assert 'ORCHESTRATOR_MODEL="qwen 14b"' in text


async def test_a_key_and_a_setting_can_be_removed(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(SAVED, encoding="utf-8")
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        field(app, "OPENAI_API_KEY").focus()
        await pilot.press("f8")
        await settle(pilot)
        assert "ctrl+s removes it" in label(app, "OPENAI_API_KEY")
        field(app, "ORCHESTRATOR_BASE_URL").focus()
        await pilot.press("f8")
        await pilot.press("ctrl+s")
        await settle(pilot)
        lines = (tmp_path / ".env").read_text(encoding="utf-8").splitlines()
        assert lines == ["# mine", 'ORCHESTRATOR_MODEL="qwen 7b"']
        assert label(app, "OPENAI_API_KEY").endswith("not set")
        assert field(app, "ORCHESTRATOR_BASE_URL").value == ""
        result = plain(app.screen.query_one("#setup-result", Static))
        assert result.startswith("Removed OPENAI_API_KEY, ORCHESTRATOR_BASE_URL from")
        assert backend.reloads == 1


async def test_saving_checks_the_endpoint_at_once(tmp_path: Path) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert backend.doctor_probes == [False]  # opening sends nothing anywhere
        field(app, "ORCHESTRATOR_BASE_URL").value = "http://127.0.0.1:9/v1"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert backend.doctor_probes == [False, True]
        # The verdict is said where the form is, as the Doctor panel may be out of view.
        result = plain(app.screen.query_one("#setup-result", Static))
        assert result.startswith("Saved ORCHESTRATOR_BASE_URL")
        assert "Checked: a session can run." in result


async def test_unprobed_doctor_never_marks_an_endpoint_ok(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path / "data",
        openai_api_key="sk-x",
        orchestrator_base_url="http://127.0.0.1:9/v1",
        orchestrator_model="qwen",
        search_provider="none",
    )
    text = (await collect_report_async(settings, probe=False)).render()
    model_lines = [line for line in text.splitlines() if "127.0.0.1:9" in line]
    assert model_lines and not any(line.startswith("ok") for line in model_lines)
    assert "endpoints not checked yet" in text
