"""The offline model plays its roles from the task the graph hands it, not from the prompts'
wording: each test rewords a prompt the way an edit might and runs the real graph."""

from __future__ import annotations

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
