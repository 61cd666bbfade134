"""`deepresearch sessions --delete`: asks on a terminal, needs --yes elsewhere, refuses a
running session."""

from __future__ import annotations

import builtins
import io

import pytest

from engine.config import settings_from_mapping
from engine.sessions import list_sessions, record_session
from tests.unit.hardening.conftest import Sandbox


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _saved(sandbox: Sandbox, *session_ids: str):
    settings = settings_from_mapping({"DATA_DIR": str(sandbox.data_dir)})
    for session_id in session_ids:
        record_session(settings, session_id, status="completed", question=f"about {session_id}")
        settings.reports_dir.mkdir(parents=True, exist_ok=True)
        (settings.reports_dir / f"{session_id}.md").write_text("# report", encoding="utf-8")
        (settings.reports_dir / f"{session_id}.audit.json").write_text("{}", encoding="utf-8")
    return settings


def _ids(settings) -> list[str]:
    return sorted(info.session_id for info in list_sessions(settings))


def test_delete_with_yes_removes_the_session(sandbox: Sandbox) -> None:
    settings = _saved(sandbox, "s-one", "s-two")
    code, out, err = sandbox.run("sessions", "--delete", "s-one", "--yes")
    assert (code, err) == (0, "")
    assert out.strip() == "deleted session s-one (2 files)"
    assert _ids(settings) == ["s-two"]
    assert sorted(p.name for p in settings.reports_dir.iterdir()) == [
        "s-two.audit.json",
        "s-two.md",
    ]


def test_delete_without_a_terminal_and_without_yes_deletes_nothing(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _saved(sandbox, "s-one")
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code, _out, err = sandbox.run("sessions", "--delete", "s-one")
    assert code == 2
    assert "add --yes" in err
    assert _ids(settings) == ["s-one"]


@pytest.mark.parametrize(("answer", "left"), [("n", ["s-one"]), ("", ["s-one"]), ("y", [])])
def test_delete_on_a_terminal_asks_first(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, answer: str, left: list[str]
) -> None:
    settings = _saved(sandbox, "s-one")
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(builtins, "input", lambda prompt: asked.append(prompt) or answer)
    code, out, _err = sandbox.run("sessions", "--delete", "s-one")
    assert code == 0
    assert len(asked) == 1 and "Delete session s-one (completed): about s-one" in asked[0]
    assert _ids(settings) == left
    assert ("not deleted" in out) == bool(left)


def test_delete_takes_a_unique_prefix_and_names_an_ambiguous_one(sandbox: Sandbox) -> None:
    settings = _saved(sandbox, "s-abc", "s-abd", "s-x")
    code, _out, err = sandbox.run("sessions", "--delete", "s-ab", "--yes")
    assert code == 2 and "ambiguous" in err and "s-abc, s-abd" in err
    code, _out, err = sandbox.run("sessions", "--delete", "nope", "--yes")
    assert code == 2 and "no saved session 'nope'" in err
    code, out, _err = sandbox.run("sessions", "--delete", "s-x", "--yes")
    assert code == 0 and "deleted session s-x" in out
    assert _ids(settings) == ["s-abc", "s-abd"]


def test_delete_refuses_a_running_session_and_says_why(sandbox: Sandbox) -> None:
    settings = _saved(sandbox, "s-run")
    record_session(settings, "s-run", status="running")  # this process now runs it
    try:
        code, out, err = sandbox.run("sessions", "--delete", "s-run", "--yes")
    finally:
        record_session(settings, "s-run", status="cancelled")
    assert code == 1 and out == ""
    assert "s-run is running; cancel the run" in err
    assert _ids(settings) == ["s-run"]
    assert (settings.reports_dir / "s-run.md").is_file()
