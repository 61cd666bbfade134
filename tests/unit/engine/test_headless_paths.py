"""`deepresearch run --out/--events`: a path that cannot be written is refused before the run."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.commands.run import EXIT_USAGE, run_headless
from engine.sessions import list_sessions
from tests.unit.engine.conftest import Scenario, make_settings
from tests.unit.engine.test_headless import parse


@pytest.mark.parametrize("flag", ["--out", "--events"])
@pytest.mark.parametrize("bad", ["missing-folder/file", "a-folder"])
async def test_an_unwritable_path_is_refused_before_anything_runs(
    tmp_path: Path, flag: str, bad: str
) -> None:
    settings = make_settings(tmp_path / "data")
    (tmp_path / "a-folder").mkdir()
    path = tmp_path / bad
    scenario = Scenario()
    err = io.StringIO()
    code = await run_headless(
        settings,
        parse("How do caches work?", "--mode", "quick", flag, str(path)),
        deps=scenario.deps(settings),
        stderr=err,
        stdout=io.StringIO(),
    )
    assert code == EXIT_USAGE
    said = err.getvalue()
    assert f"{flag} {path}: " in said
    reason = "is a folder" if bad == "a-folder" else f"the folder {path.parent} does not exist"
    assert reason in said
    assert list_sessions(settings) == []  # no session was started, nothing was spent
