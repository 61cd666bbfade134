"""`deepresearch run` and `deepresearch sessions` without the app."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

from engine.cli import build_parser
from engine.commands import sessions as sessions_command
from engine.commands.run import (
    EXIT_NEEDS_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    run_headless,
)
from engine.progress_text import unit_title
from engine.sessions import list_sessions
from tests.unit.engine.conftest import Scenario, make_settings


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["run", *argv])


async def headless(settings, scenario, *argv: str, **kw):
    err, out = io.StringIO(), io.StringIO()
    code = await run_headless(
        settings, parse(*argv), deps=scenario.deps(settings), stderr=err, stdout=out, **kw
    )
    return code, out.getvalue(), err.getvalue()


async def test_yes_runs_to_a_report_on_stdout_with_progress_on_stderr(tmp_path: Path):
    settings = make_settings(tmp_path)
    events = tmp_path / "events.jsonl"
    code, out, err = await headless(
        settings, Scenario(), "Compare alpha and beta", "--yes", "--events", str(events)
    )
    assert code == EXIT_OK
    assert out.startswith("# Compare alpha and beta\n") and "## Sources" in out
    assert "[researching]" in err and "unit-1 completed (2 evidence" in err
    assert "quality gate pass" in err
    types = [json.loads(line)["type"] for line in events.read_text().splitlines()]
    assert types[0] == "session_started" and types[-1] == "run_finished"
    assert "plan_proposed" in types and "report_ready" in types


async def test_progress_shows_each_phase_once_and_one_line_per_unit(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(track_words=["alpha caching", "beta caching", "gamma caching"])
    code, _out, err = await headless(settings, scenario, "Compare alpha and beta", "--yes")
    assert code == EXIT_OK
    lines = err.splitlines()
    assert lines.count("[plan_review]") == 1
    assert lines.count("[researching]") == 1
    running = sorted(line.strip() for line in lines if " running: " in line)
    assert running == [
        "unit-1 running: Track alpha caching",
        "unit-2 running: Track beta caching",
        "unit-3 running: Track gamma caching",
    ]
    assert "Section:" not in err and "Queries:" not in err and "as a whole" not in err


def test_unit_titles_are_one_short_line():
    assert unit_title("Research track: WAL mode\nSection: How\nQueries: a | b") == "WAL mode"
    assert unit_title("Find how WAL works: readers vs writers.\nCite the docs.") == (
        "Find how WAL works: readers vs writers."
    )
    assert unit_title("  spaced\t out   topic ") == "spaced out topic"
    long = unit_title("word " * 40, width=20)
    assert len(long) == 20 and long.endswith("…")


async def test_a_clarification_without_answer_exits_3_with_the_session_id(tmp_path: Path):
    settings = make_settings(tmp_path)
    # Without --yes nobody may answer for the person: the run stops and says how to resume.
    code, out, err = await headless(settings, Scenario(clarify=True), "alpha?")
    assert code == EXIT_NEEDS_INPUT
    session_id = out.strip()
    assert "clarification needed: Which region?" in err and f"--resume {session_id}" in err
    assert list_sessions(settings)[0].status == "awaiting_clarification"

    report = tmp_path / "report.md"
    code, out, err = await headless(
        settings,
        Scenario(),
        "--resume",
        session_id,
        "--answer",
        "Europe",
        "--yes",
        "--out",
        str(report),
    )
    assert code == EXIT_OK and out == ""
    assert report.read_text().startswith("# ")
    assert "## Sources" in report.read_text()
    assert list_sessions(settings)[0].status == "completed"


async def test_with_yes_a_clarifying_question_is_answered_by_proceeding(tmp_path: Path):
    settings = make_settings(tmp_path)
    report = tmp_path / "report.md"
    code, out, err = await headless(
        settings, Scenario(clarify=True), "alpha?", "--yes", "--out", str(report)
    )
    assert code == EXIT_OK, err
    assert out == ""  # the report went to --out
    assert "clarification skipped (--yes)" in err and "clarification needed" not in err
    assert report.read_text().startswith("# ")
    assert "## Sources" in report.read_text()
    assert list_sessions(settings)[0].status == "completed"


async def test_a_plan_needs_yes_or_a_plan_file(tmp_path: Path):
    settings = make_settings(tmp_path)
    code, out, err = await headless(settings, Scenario(), "Compare alpha and beta")
    assert code == EXIT_NEEDS_INPUT and "proposed plan:" in err and "--yes" in err
    assert out.strip() == list_sessions(settings)[0].session_id


async def test_an_edited_plan_file_is_researched(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario()
    plan = scenario.plan().model_dump()
    plan["scope"] = "Scope from the file"
    code, out, _err = await headless(settings, scenario, "Compare alpha and beta", edited_plan=plan)
    assert code == EXIT_OK and out.startswith("# Compare alpha and beta\n")
    prompts = [str(m.content) for call in scenario._model.calls for m in call]
    assert any("Scope: Scope from the file" in p for p in prompts)


def test_a_bad_plan_file_is_refused_before_anything_runs(tmp_path: Path, capsys, monkeypatch):
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps({"scope": "x y z", "tracks": []}))
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    args = parse("q", "--plan", str(bad))
    assert args.handler(args) == EXIT_USAGE
    assert "tracks: List should have at least 3 items" in capsys.readouterr().err


def test_sessions_lists_saved_sessions_with_status(tmp_path: Path, capsys, monkeypatch):
    from engine.sessions import record_session

    settings = make_settings(tmp_path)
    monkeypatch.setenv("DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", "")
    record_session(settings, "s-1", status="completed", question="How do caches work?")
    record_session(settings, "s-2", status="awaiting_plan_review", question="What is WAL?")
    assert sessions_command.run(argparse.Namespace()) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["SESSION", "STATUS", "UPDATED", "TOKENS", "COST", "QUESTION"]
    rows = {line.split()[0]: line for line in out[1:]}
    assert "completed" in rows["s-1"] and "How do caches work?" in rows["s-1"]
    assert "awaiting_plan_review" in rows["s-2"]


async def test_resuming_an_unknown_session_fails_clearly_and_records_nothing(tmp_path: Path):
    settings = make_settings(tmp_path)
    code, _out, err = await headless(settings, Scenario(), "--resume", "no-such-session")
    assert code != EXIT_OK
    assert "no saved session 'no-such-session'" in err
    assert "resume:" not in err
    assert all(info.session_id != "no-such-session" for info in list_sessions(settings))


async def test_a_report_on_stdout_also_names_where_it_was_saved(tmp_path: Path):
    settings = make_settings(tmp_path)
    code, out, err = await headless(settings, Scenario(), "Compare alpha and beta", "--yes")
    assert code == EXIT_OK
    saved = next(line for line in err.splitlines() if line.startswith("report saved to "))
    assert Path(saved.removeprefix("report saved to ")).read_text() == out


async def test_the_events_file_is_replaced_unless_append_is_given(tmp_path: Path):
    settings = make_settings(tmp_path)
    events = tmp_path / "events.jsonl"

    def starts() -> int:
        return sum('"type":"session_started"' in line for line in events.read_text().splitlines())

    for argv, expected in ((("--events",), 1), (("--events",), 1), (("--append", "--events"), 2)):
        code, _out, _err = await headless(
            settings, Scenario(), "Compare alpha and beta", "--yes", *argv, str(events)
        )
        assert code == EXIT_OK
        assert starts() == expected


async def test_a_question_with_resume_is_a_follow_up_of_the_finished_session(tmp_path: Path):
    settings = make_settings(tmp_path)
    code, _out, err = await headless(settings, Scenario(), "Compare alpha and beta", "--yes")
    assert code == EXIT_OK
    session_id = list_sessions(settings)[0].session_id
    events = tmp_path / "follow-up.jsonl"
    code, out, err = await headless(
        settings,
        Scenario(),
        "--resume",
        session_id,
        "How do alpha caches expire?",
        "--yes",
        "--events",
        str(events),
    )
    assert code == EXIT_OK, err
    assert out.startswith("# How do alpha caches expire?\n")
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert lines[0]["type"] == "session_started" and lines[0]["session_id"] == session_id
    assert "report_ready" in [line["type"] for line in lines]
    assert [info.session_id for info in list_sessions(settings)] == [session_id]
    assert (settings.reports_dir / f"{session_id}-2.md").read_text() == out


async def test_a_follow_up_of_a_session_still_waiting_is_refused_with_what_to_do(tmp_path: Path):
    settings = make_settings(tmp_path)
    code, out, _err = await headless(settings, Scenario(), "Compare alpha and beta")
    assert code == EXIT_NEEDS_INPUT
    session_id = out.strip()
    code, out, err = await headless(settings, Scenario(), "--resume", session_id, "And gamma?")
    assert code == EXIT_USAGE and out == ""
    assert f"session {session_id} waits for an answer or a plan review" in err
    assert f"--resume {session_id} --yes" in err
