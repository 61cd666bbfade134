"""Scoping heuristics: clarification, brief, route and plan from the question's words."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.models.offline.plan import (
    brief_for,
    needs_clarification,
    plan_for,
    route_for,
)
from engine.schemas import MAX_TRACKS, MIN_TRACKS


def test_clarifies_only_a_question_too_short_to_plan() -> None:
    assert needs_clarification("asyncio", already_asked=False)
    assert needs_clarification("the?", already_asked=False)
    assert not needs_clarification("asyncio cancellation", already_asked=False)
    assert not needs_clarification("asyncio", already_asked=True)


def test_brief_restates_the_question_on_a_labelled_line() -> None:
    brief = brief_for("How are asyncio tasks cancelled?")
    assert brief.splitlines()[0] == "Research question: How are asyncio tasks cancelled?"
    assert "asyncio tasks cancelled" in brief


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        ("What is a coroutine?", "quick"),
        ("When was asyncio added to Python?", "quick"),
        ("How are asyncio tasks cancelled?", "quick"),
        ("Compare threads and asyncio for network servers", "deep"),
        ("asyncio versus trio", "deep"),
        ("Why does cancellation propagate through task groups?", "deep"),
        ("How do threads and processes differ in Python?", "deep"),
        (
            "What is the state of structured concurrency support across Python libraries today",
            "deep",
        ),
        (
            "Explain the relationship between event loops, executors and the GIL in servers",
            "deep",
        ),
    ],
)
def test_route(question: str, mode: str) -> None:
    assert route_for(question)[0] == mode
    assert route_for(question)[1]


def test_comparison_splits_into_sides_and_differences() -> None:
    plan = plan_for("Compare Python threads vs asyncio for I/O-bound workloads")
    titles = [track.title for track in plan.tracks]
    assert titles[0].startswith("Python threads")
    assert titles[1].startswith("asyncio")
    assert any("key differences" in title for title in titles)
    assert any("I/O-bound workloads" in track.section for track in plan.tracks)
    assert all("Python threads" in q or "asyncio" in q for t in plan.tracks for q in t.queries)


def test_explanatory_question_gets_aspects_with_two_queries_each() -> None:
    plan = plan_for("How are asyncio tasks cancelled?")
    assert len(plan.tracks) == 4
    assert [t.section for t in plan.tracks][:2] == ["Overview", "How it works"]
    for track in plan.tracks:
        assert 2 <= len(track.queries) <= 3
        assert "asyncio" in track.queries[0] or "tasks" in track.queries[0]


def test_several_key_phrases_become_tracks() -> None:
    plan = plan_for("How do context managers and decorators handle exceptions in Python code?")
    sections = [t.section.lower() for t in plan.tracks]
    assert "context managers" in sections
    assert any("decorators" in s for s in sections)


def test_grounding_results_name_tracks() -> None:
    grounding = (
        "## Search results\n### asyncio cancel\n"
        'Search results for "asyncio cancel":\n\n'
        "[1] Task groups — Python documentation\nURL: https://docs.example.org/tg.html\n"
        "Task groups cancel the remaining tasks.\n"
    )
    plan = plan_for("How are asyncio tasks cancelled?", grounding)
    assert any(track.section == "Task groups" for track in plan.tracks)


def test_feedback_adds_a_requested_track() -> None:
    feedback = "Add a section about timeouts and deadlines"
    plan = plan_for("How are asyncio tasks cancelled?", feedback=feedback)
    assert "timeouts deadlines" in plan.tracks[0].section.lower()
    assert plan != plan_for("How are asyncio tasks cancelled?")


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=300))
def test_any_question_yields_a_valid_plan(question: str) -> None:
    plan = plan_for(question)
    assert MIN_TRACKS <= len(plan.tracks) <= MAX_TRACKS
    sections = [t.section.casefold() for t in plan.tracks]
    assert len(set(sections)) == len(sections)
    assert len({t.title.casefold() for t in plan.tracks}) == len(plan.tracks)
    assert plan == plan_for(question)  # deterministic


@settings(max_examples=60, deadline=None)
@given(
    st.from_regex(r"[A-Za-z]{2,12}( [A-Za-z]{2,12}){0,2}", fullmatch=True),
    st.from_regex(r"[A-Za-z]{2,12}( [A-Za-z]{2,12}){0,2}", fullmatch=True),
)
def test_any_comparison_yields_a_valid_plan(a: str, b: str) -> None:
    plan = plan_for(f"{a} vs {b}")
    assert MIN_TRACKS <= len(plan.tracks) <= MAX_TRACKS
