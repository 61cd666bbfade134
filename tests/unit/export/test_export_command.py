"""`deepresearch export SESSION --format … [--out PATH]`: the stored typed report, written."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main
from engine.config import Settings, load_settings
from engine.sessions import record_session
from engine.sessions_log import events_path
from tests.unit.export.sample_report import SESSION, sample_report


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", "")
    monkeypatch.chdir(tmp_path)
    return load_settings()


def store_session(settings: Settings, *, with_report: bool = True) -> None:
    record_session(settings, SESSION, status="completed", question="How do caches work?")
    if with_report:
        path = events_path(settings, SESSION)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sample_report().model_dump_json() + "\n", encoding="utf-8")


def test_exports_the_stored_report_to_the_path_given(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_session(settings)
    out = tmp_path / "handed-on" / "caches.html"
    assert main(["export", SESSION[:12], "--format", "html", "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out.resolve()}"
    html = out.read_text(encoding="utf-8")
    # The claims come from the stored event: a saved Markdown file alone has none.
    assert "Caches were invented in 1802." in html
    assert 'id="source-2"' in html


def test_defaults_to_the_export_folder_with_the_session_in_the_name(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store_session(settings)
    assert main(["export", SESSION, "--format", "md"]) == 0
    written = tmp_path / "exports" / f"deepresearch-{SESSION}.md"
    assert capsys.readouterr().out.strip() == f"wrote {written.resolve()}"
    assert "## Appendix: verification audit" in written.read_text(encoding="utf-8")


def test_a_session_without_a_report_is_a_usage_error(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    store_session(settings, with_report=False)
    assert main(["export", SESSION, "--format", "pdf"]) == 2
    assert "has no report yet" in capsys.readouterr().err


def test_an_unknown_session_is_named_in_the_error(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    store_session(settings)
    assert main(["export", "20991231", "--format", "docx"]) == 2
    assert "no saved session '20991231'" in capsys.readouterr().err
