"""ENGINE_PROCESSES: how many engine processes `deepresearch serve` runs, checked at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.api import serve_settings
from engine.api.app import create_app
from engine.api.serve_settings import engine_processes, parse_engine_processes
from engine.cli import main
from engine.config import SettingsError, settings_from_mapping


def test_unset_or_blank_is_one_per_core_at_most_four(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve_settings, "cores", lambda: 2)
    assert parse_engine_processes(None) == 2
    assert parse_engine_processes("  ") == 2
    monkeypatch.setattr(serve_settings, "cores", lambda: 16)
    assert parse_engine_processes(None) == 4
    monkeypatch.setattr(serve_settings, "cores", lambda: 1)
    assert parse_engine_processes("") == 1


def test_a_count_is_taken_as_given() -> None:
    assert parse_engine_processes("1") == 1
    assert parse_engine_processes(" 3 ") == 3
    assert parse_engine_processes("64") == 64


@pytest.mark.parametrize("value", ["0", "-1", "65", "two", "1.5", "2 processes"])
def test_a_bad_count_is_an_error_naming_the_setting(value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        parse_engine_processes(value)
    message = str(raised.value)
    assert f"ENGINE_PROCESSES={value!r}" in message
    assert "from 1 to 64" in message


def test_the_environment_wins_over_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("ENGINE_PROCESSES=3\n")
    named = {"DEEPRESEARCH_ENV_FILE": str(env_file)}
    assert engine_processes(named, tmp_path) == 3
    assert engine_processes({**named, "ENGINE_PROCESSES": "2"}, tmp_path) == 2
    assert engine_processes({**named, "engine_processes": "1"}, tmp_path) == 1
    env_file.write_text("ENGINE_PROCESSES=many\n")
    with pytest.raises(SettingsError, match="ENGINE_PROCESSES='many'"):
        engine_processes(named, tmp_path)


def test_the_app_refuses_a_bad_count_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGINE_PROCESSES", "0")
    with pytest.raises(SettingsError, match="ENGINE_PROCESSES='0'"):
        create_app(settings_from_mapping({"DATA_DIR": str(tmp_path)}))


def test_serve_says_which_setting_is_wrong_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(env_file))
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENGINE_PROCESSES", "lots")
    assert main(["serve", "--port", "8765"]) == 2
    err = capsys.readouterr().err
    assert "ENGINE_PROCESSES='lots'" in err and "Traceback" not in err
