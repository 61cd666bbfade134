"""`e` on a finished report: choose the format, then the path; the file is the engine's export
in that format, and the screen says where it went."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, RadioButton

from tests.pilot.conftest import make_app
from tests.pilot.fakes import SESSION_ID, ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle, wait_until
from tui.screens.export import ExportScreen, with_format


async def test_choosing_html_in_the_list_sets_the_extension_and_writes_html(
    tmp_path: Path,
) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await press_and_settle(pilot, "e")
        assert isinstance(app.screen, ExportScreen)
        field = app.screen.query_one("#export-path", Input)
        assert field.value.endswith(f"deepresearch-{SESSION_ID}.md")
        # Tab reaches the format list; the next entry is HTML.
        await press_and_settle(pilot, "tab", "down", "enter")
        assert app.screen.query_one("#export-html", RadioButton).value
        assert field.value.endswith(f"deepresearch-{SESSION_ID}.html")
        await press_and_settle(pilot, "shift+tab", "enter")
        written = tmp_path / "exports" / f"deepresearch-{SESSION_ID}.html"
        notice = app.screen.query_one("#notice")
        assert await wait_until(pilot, lambda: "exported to" in str(notice.render()))
        assert backend.exported == [("html", written)]
        html = written.read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and 'id="source-1"' in html


async def test_typing_a_known_extension_chooses_its_format(tmp_path: Path) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y", "e")
        field = app.screen.query_one("#export-path", Input)
        field.value = str(tmp_path / "handed-on" / "report.docx")
        await pilot.pause()
        assert app.screen.query_one("#export-docx", RadioButton).value
        await press_and_settle(pilot, "enter")
        written = tmp_path / "handed-on" / "report.docx"
        assert await wait_until(pilot, written.is_file)
        assert backend.exported == [("docx", written)]
        assert written.read_bytes()[:2] == b"PK"  # a Word file is a zip


def test_the_extension_follows_the_format_and_an_unknown_one_is_kept() -> None:
    assert with_format("/x/report.md", "pdf") == "/x/report.pdf"
    assert with_format("/x/report.notes", "html") == "/x/report.notes.html"
    assert with_format("", "pdf") == ""
