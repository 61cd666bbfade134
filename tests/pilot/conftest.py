from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.pilot.fakes import FakeBackend, ScriptedDriver
from tui.app import DeepResearchApp


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor makes timing-dependent frames; tests never need it."""
    monkeypatch.setattr(Input, "cursor_blink", False)


def make_app(
    tmp_path: Path, driver: ScriptedDriver, **backend_options: object
) -> tuple[DeepResearchApp, FakeBackend]:
    backend = FakeBackend(driver, env_path=tmp_path / ".env", **backend_options)  # type: ignore[arg-type]
    return DeepResearchApp(backend, clock=lambda: 100.0, export_dir=tmp_path / "exports"), backend
