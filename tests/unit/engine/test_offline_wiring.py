"""The real wiring, offline: default models (the offline extractive model), the real toolkit
over a local corpus, the real verifier. No scripted doubles, no network."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import settings_from_mapping
from engine.events import OFFLINE_NOTICE, EvidenceAdded, PlanProposed, ReportReady, RunFinished
from engine.run.runner import open_session
from engine.schemas import PlanDecision

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"


@pytest.mark.timeout(240)
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the fixture corpus is not present")
async def test_offline_deep_run_produces_a_verified_cited_report(tmp_path: Path):
    settings = settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "offline",
            "SEARCH_PROVIDER": "local",
            "DOCUMENTS_PATH": str(CORPUS),
            "DATA_DIR": str(tmp_path),
            "MIN_SOURCE_DOMAINS": "2",
        }
    )
    async with open_session(settings) as session:
        first = [e async for e in session.start("How does SQLite WAL mode work?", mode="deep")]
        assert any(isinstance(e, PlanProposed) for e in first)
        events = [e async for e in session.review_plan(PlanDecision(action="approve"))]
    report = next(e for e in events if isinstance(e, ReportReady))
    assert report.offline_notice == OFFLINE_NOTICE
    assert report.report.startswith(f"> {OFFLINE_NOTICE}")
    assert report.kept_citations, "the offline writer's citations should survive verification"
    evidence = [e.record for e in events if isinstance(e, EvidenceAdded)]
    assert evidence and all(r.source_urls for r in evidence)
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"
