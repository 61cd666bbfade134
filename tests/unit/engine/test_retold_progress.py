"""Progress a killed leg stored is stored once when the leg that resumes it tells it again,
and the log still says which phase the run is in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from engine.events import Event, PhaseChanged, ReportReviewed, SessionStarted, ToolCalled
from engine.sessions_log import load_events, logged
from tests.unit.engine.conftest import make_settings

SESSION = "20261129-101500-abc123"
REVIEW = ReportReviewed(round=1, max_rounds=1, unsupported_claims=0)


async def _store(settings: object, events: list[Event]) -> None:
    async def stream() -> AsyncIterator[Event]:
        for event in events:
            yield event

    async for _event in logged(settings, SESSION, stream()):  # type: ignore[arg-type]
        pass


def _started(*, resumed: bool) -> SessionStarted:
    return SessionStarted(session_id=SESSION, question="q", mode="deep", resumed=resumed)


async def test_a_resumed_step_stores_only_what_the_killed_one_had_not(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    writing = PhaseChanged(phase="writing")
    section = PhaseChanged(phase="writing", detail="writing the section 'Locks'")
    tool = ToolCalled(tool="search", call_id="c1", arguments="locks")
    # Killed mid-writing: one section reviewed of two.
    await _store(settings, [_started(resumed=False), tool, writing, section, REVIEW])
    # The resume says where it picks up, then runs the writer again from its start.
    again = PhaseChanged(phase="researching", detail="resumed")
    second = PhaseChanged(phase="writing", detail="writing the section 'Queues'")
    verifying = PhaseChanged(phase="verifying")
    await _store(
        settings,
        [_started(resumed=True), again, writing, section, REVIEW, second, REVIEW, verifying],
    )
    stored = load_events(settings, SESSION) or []
    assert stored[5:] == [
        _started(resumed=True),
        again,
        writing,  # told again, but the log said "researching" since the resume: stored
        second,
        REVIEW,  # the second section's review: only one was told before the kill
        verifying,
    ]


async def test_a_session_killed_twice_stores_each_piece_of_progress_once(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    first = ToolCalled(tool="search", call_id="c1", arguments="queues")
    second = ToolCalled(tool="search", call_id="c2", arguments="locks")
    await _store(settings, [_started(resumed=False), first])
    await _store(settings, [_started(resumed=True), first, second])
    await _store(settings, [_started(resumed=True), first, second])
    tools = [e for e in load_events(settings, SESSION) or [] if isinstance(e, ToolCalled)]
    assert tools == [first, second]


async def test_a_new_question_tells_its_own_progress(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    tool = ToolCalled(tool="search", call_id="c1", arguments="queues")
    await _store(settings, [_started(resumed=False), tool])
    await _store(settings, [_started(resumed=False), tool])
    tools = [e for e in load_events(settings, SESSION) or [] if isinstance(e, ToolCalled)]
    assert tools == [tool, tool]
