"""The offline model plays its roles from the task the graph hands it, not from the prompts'
wording: each test rewords a prompt the way an edit might and runs the real graph."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.config import settings_from_mapping
from engine.events import PlanProposed
from engine.run.runner import open_session
from engine.schemas import PlanDecision

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not CORPUS.is_dir(), reason="the fixture corpus is not present"),
]


def _settings(tmp_path: Path) -> Any:
    return settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "offline",
            "SEARCH_PROVIDER": "local",
            "DOCUMENTS_PATH": str(CORPUS),
            "DATA_DIR": str(tmp_path),
        }
    )


async def test_a_reworded_revision_request_still_revises_the_plan(tmp_path, monkeypatch):
    from engine.nodes import scope

    monkeypatch.setattr(scope, "PLAN_FEEDBACK", "\n\nThe reviewer wants changes:\n{feedback}")
    monkeypatch.setattr(scope, "CURRENT_PLAN_HEADING", "## The plan as reviewed")
    async with open_session(_settings(tmp_path)) as session:
        first = [e async for e in session.start("How does SQLite WAL mode work?", mode="deep")]
        proposed = next(e for e in first if isinstance(e, PlanProposed)).plan
        edited = proposed.model_copy(deep=True)
        edited.tracks[0] = edited.tracks[0].model_copy(update={"title": "My own title"})
        decision = PlanDecision(
            action="revise", feedback="add a track on checkpoint starvation", plan=edited
        )
        events = [e async for e in session.review_plan(decision)]
        await session.cancel()
    revised = next(e for e in events if isinstance(e, PlanProposed)).plan
    titles = [track.title for track in revised.tracks]
    assert "My own title" in titles
    assert any("checkpoint starvation" in title for title in titles)


async def test_a_reworded_section_request_is_still_written_by_the_model(monkeypatch):
    from engine.middleware.retry import RetryPolicy
    from engine.model_task import ModelTask
    from engine.models.offline import OfflineChatModel
    from engine.nodes import section_inputs
    from engine.nodes.section_inputs import NumberedPassage, SectionInput
    from engine.nodes.section_writer import (
        SourceNumbers,
        draft_claims,
        summary_payload,
        summary_prompt,
        write_section,
    )
    from engine.prompts import SUMMARY_PROMPT

    monkeypatch.setattr(section_inputs, "SECTION_INPUT_HEADING", "## What to write from")
    passage = NumberedPassage(1, "https://a.example.org/wal", "WAL", "WAL appends changes.")
    section = SectionInput(
        heading="Write-ahead log",
        track="WAL",
        question="How does SQLite WAL mode work?",
        passages=[passage],
        findings=[("WAL appends changes to a separate file.", [1])],
    )
    numbers, model, policy = SourceNumbers(), OfflineChatModel(), RetryPolicy(max_retries=0)
    written = await write_section(
        model, section, numbers, date="2026-01-01", structured=True, policy=policy
    )
    assert written.written_by_model
    assert written.sentences == [("WAL appends changes to a separate file.", [1])]
    monkeypatch.setattr("engine.nodes.section_writer.SECTION_INPUT_HEADING", "## Sections")
    # The summary's own call (`write_summary` then drops a summary that only repeats).
    claims = await draft_claims(
        model,
        SUMMARY_PROMPT.format(date="2026-01-01"),
        summary_prompt(section.question, [written]),
        structured=True,
        policy=policy,
        task=ModelTask(role="summary", section=summary_payload(section.question, [written])),
    )
    assert [(claim.text, claim.source_ids) for claim in claims] == [
        ("WAL appends changes to a separate file.", [1])
    ]


def _reworded_topic(track: Any, scope: str, question: str = "") -> str:
    queries = "; ".join(track.queries)
    return f"Look into {track.title} for {track.section}, searching {queries}. ({scope})"


def _reworded_plan(plan: Any) -> str:
    return "The plan, as approved: " + plan.model_dump_json()


async def _approved_run(tmp_path: Path) -> tuple[Any, list[Any]]:
    async with open_session(_settings(tmp_path)) as session:
        first = [e async for e in session.start("How does SQLite WAL mode work?", mode="deep")]
        plan = next(e for e in first if isinstance(e, PlanProposed)).plan
        events = [e async for e in session.review_plan(PlanDecision(action="approve"))]
    return plan, events


async def test_a_reworded_track_topic_still_searches_the_tracks_queries(tmp_path, monkeypatch):
    from engine.events import ResearchUnitUpdated, ToolCalled
    from engine.nodes import plan_dispatch

    monkeypatch.setattr(plan_dispatch, "track_topic", _reworded_topic)
    plan, events = await _approved_run(tmp_path)
    topics = {e.unit.id: e.unit.topic for e in events if isinstance(e, ResearchUnitUpdated)}
    searched = Counter(
        (e.unit_id, e.arguments)
        for e in events
        if isinstance(e, ToolCalled) and e.tool == "search_web" and e.status == "succeeded"
    )
    for track in plan.tracks:
        [unit] = [u for u, t in topics.items() if t.startswith(f"Look into {track.title} for")]
        # Searched by the engine before the unit starts, then by its researcher: the track's
        # queries, not words of a topic it failed to read.
        assert all(searched[unit, query] >= 2 for query in track.queries), track


async def test_a_reworded_plan_block_still_dispatches_only_the_plan(tmp_path, monkeypatch):
    from engine.events import ResearchUnitUpdated
    from engine.nodes import plan_dispatch, supervisor

    monkeypatch.setattr(supervisor, "format_plan", _reworded_plan)
    monkeypatch.setattr(plan_dispatch, "track_topic", _reworded_topic)
    plan, events = await _approved_run(tmp_path)
    units = {e.unit.id: e.unit.topic for e in events if isinstance(e, ResearchUnitUpdated)}
    # The supervisor adds only broadened follow-ups: neither the question as a track of its
    # own nor the tracks the engine researched again.
    tracks = [t for t in units.values() if "(follow-up" not in t]
    assert sorted(tracks) == sorted(_reworded_topic(t, plan.scope) for t in plan.tracks)


async def test_a_reworded_gate_rejection_still_brings_follow_ups(tmp_path, monkeypatch):
    from engine.events import ResearchUnitUpdated
    from engine.nodes import supervisor_turn

    monkeypatch.setattr(supervisor_turn, "REJECTED_PREFIX", "[The quality gate says no:")
    settings = _settings(tmp_path).model_copy(update={"min_evidence_records": 500})
    async with open_session(settings) as session:
        [e async for e in session.start("How does SQLite WAL mode work?", mode="deep")]
        events = [e async for e in session.review_plan(PlanDecision(action="approve"))]
    topics = {e.unit.topic for e in events if isinstance(e, ResearchUnitUpdated)}
    # Each rejection by the gate brings broadened follow-ups, however the rejection is worded.
    assert any("(follow-up 1)" in topic for topic in topics)
