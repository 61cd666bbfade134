"""A process killed after its final checkpoint, before its log and report file caught up:
the checkpoint holds the typed report, and the session is told whole from it."""

from __future__ import annotations

from pathlib import Path

from engine.events import ReportReady, RunFinished
from engine.run.runner import open_session
from engine.sessions import get_session, load_report, record_session
from engine.sessions_log import events_path, load_events
from tests.unit.engine.conftest import Scenario, make_settings


async def test_a_run_killed_after_its_last_checkpoint_is_told_whole_from_it(
    tmp_path: Path,
) -> None:
    settings = make_settings(tmp_path)
    scenario = Scenario()
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        told = [event async for event in session.start("How do caches work?", mode="quick")]
    session_id = session.session_id
    report = next(event for event in told if isinstance(event, ReportReady))
    assert report.report_path is not None

    # As the killed process left it: the log stops before the report, the report's files
    # were on the machine that died, and the index still says it runs.
    log = events_path(settings, session_id)
    lines = log.read_text(encoding="utf-8").splitlines()
    cut = next(
        i for i, line in enumerate(lines) if '"type":"report_ready"' in line.replace(" ", "")
    )
    log.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    Path(report.report_path).unlink()
    Path(report.report_path).with_suffix(".audit.json").unlink()
    record_session(settings, session_id, status="running")
    record_session(settings, session_id, status="interrupted")

    found = load_report(settings, session_id)
    assert found is not None and found.report == report.report

    async with open_session(settings, session_id, deps=scenario.deps(settings)) as again:
        assert await again.stage() == "unfinished"  # its end was never told: resume tells it
        resumed = [event async for event in again.resume()]
        assert await again.stage() == "finished"
    assert [e.report for e in resumed if isinstance(e, ReportReady)] == [report.report]
    assert isinstance(resumed[-1], RunFinished) and resumed[-1].status == "completed"
    assert Path(report.report_path).read_text(encoding="utf-8") == report.report
    stored = load_events(settings, session_id) or []
    assert [e.report for e in stored if isinstance(e, ReportReady)] == [report.report]
    info = get_session(settings, session_id)
    assert info is not None and info.status == "completed"

    # Told once: resuming the finished session again stores no second report.
    async with open_session(settings, session_id, deps=scenario.deps(settings)) as third:
        again_told = [event async for event in third.resume()]
    assert any(isinstance(e, ReportReady) for e in again_told)  # the answer, shown again
    stored = load_events(settings, session_id) or []
    assert len([e for e in stored if isinstance(e, ReportReady)]) == 1
