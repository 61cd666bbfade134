"""A session's report files: one per verification, whatever kill and resume came between."""

from __future__ import annotations

from pathlib import Path

from engine.nodes.verify import save_report

SESSION = "20261129-093000-abc123"


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_a_verification_run_again_after_a_kill_writes_over_its_own_file(tmp_path: Path) -> None:
    # The killed verification wrote its file; its checkpoint (no report yet) never saw it.
    save_report(tmp_path, SESSION, "# Draft one\n", {"run": 1})
    report, audit = save_report(tmp_path, SESSION, "# Draft two\n", {"run": 2})
    assert _names(tmp_path) == [f"{SESSION}.audit.json", f"{SESSION}.md"]
    assert Path(report).read_text(encoding="utf-8").startswith("# Draft two")
    assert '"run": 2' in Path(audit).read_text(encoding="utf-8")


def test_a_continued_partial_report_goes_beside_the_recorded_one_once(tmp_path: Path) -> None:
    partial, _audit = save_report(tmp_path, SESSION, "# Partial\n", {})
    # Continued with a raised budget: killed after writing, then resumed.
    for _attempt in range(2):
        continued, _audit = save_report(tmp_path, SESSION, "# Whole\n", {}, recorded=partial)
    assert Path(continued).name == f"{SESSION}-continued-2.md"
    assert Path(partial).read_text(encoding="utf-8").startswith("# Partial")
    again, _audit = save_report(tmp_path, SESSION, "# More\n", {}, recorded=continued)
    assert Path(again).name == f"{SESSION}-continued-3.md"
    assert [name for name in _names(tmp_path) if name.endswith(".md")] == [
        f"{SESSION}-continued-2.md",
        f"{SESSION}-continued-3.md",
        f"{SESSION}.md",
    ]


def test_a_follow_up_question_has_its_own_file(tmp_path: Path) -> None:
    first, _audit = save_report(tmp_path, SESSION, "# First\n", {})
    second, _audit = save_report(tmp_path, SESSION, "# Second\n", {}, 2, recorded=first)
    assert Path(second).name == f"{SESSION}-2.md"
    assert Path(first).read_text(encoding="utf-8").startswith("# First")


def test_no_staging_file_is_left_beside_the_report(tmp_path: Path) -> None:
    save_report(tmp_path, SESSION, "# Report\n", {})
    assert not [name for name in _names(tmp_path) if name.startswith(".")]
