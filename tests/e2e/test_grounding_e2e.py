"""A writer that cites real, retrieved sources for made-up facts, through ChatOpenAI.

The fixture server answers as the offline model does, except that the writer's report gains
sentences citing [1] and [2] (sources the researchers did retrieve) for facts no source
states. Citation verification keeps them (the sources are real); grounding must not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import ReportReviewed
from engine.grounding.enforce import UNSUPPORTED_MARK
from tests.e2e.harness import run_deep_session
from tests.e2e.remote_stack import remote_stack
from tests.fixtures.openai_server import MADE_UP_CLAIMS

QUESTION = "How do asyncio task groups and timeouts handle cancellation of running tasks?"


@pytest.fixture
def stack():
    with remote_stack() as running:
        yield running


def _made_up_in(text: str) -> list[str]:
    return [claim[:-5] for claim in MADE_UP_CLAIMS if claim[:-5] in text]


async def test_strict_grounding_removes_or_marks_made_up_claims_citing_real_sources(
    stack, tmp_path: Path
) -> None:
    stack.llm.fail("made_up_claims")
    settings = stack.settings(tmp_path / "data", GROUNDING="strict", CRITIC_ROUNDS="0")
    run = await run_deep_session(settings, QUESTION)
    assert not run.failures, run.failures
    assert stack.llm.pending_faults == 0  # the writer did write them
    report = run.report
    assert report is not None
    # Without a judge the rules decide: what shares no content with any retrieved text goes,
    # what shares some (a made-up count about cancelled tasks) stays marked.
    made_up = [c for c in report.claims if _made_up_in(c.text)]
    assert len(made_up) == 2
    assert all(c.status == "unsupported" and c.reason for c in made_up)
    assert all(c.action in ("removed", "marked") for c in made_up)
    for claim in made_up:
        if claim.action == "marked":
            assert f"{claim.text}{UNSUPPORTED_MARK}" in report.report
        else:
            assert claim.text not in report.report
    # The research itself still stands: supported claims keep the report verified.
    assert report.verification_status == "verified"
    assert any(claim.status == "supported" for claim in report.claims)


async def test_mark_grounding_keeps_them_with_a_visible_marker(stack, tmp_path: Path) -> None:
    stack.llm.fail("made_up_claims")
    settings = stack.settings(tmp_path / "data", GROUNDING="mark", CRITIC_ROUNDS="0")
    run = await run_deep_session(settings, QUESTION)
    assert not run.failures, run.failures
    report = run.report
    assert report is not None
    assert len(_made_up_in(report.report)) == 2
    assert report.report.count(UNSUPPORTED_MARK.strip()) >= 2
    assert [c.action for c in report.claims if c.status == "unsupported"].count("marked") >= 2


async def test_the_critic_sends_them_back_and_the_revision_drops_them(
    stack, tmp_path: Path
) -> None:
    stack.llm.fail("made_up_claims")  # the first draft only; the revision is honest
    settings = stack.settings(tmp_path / "data", GROUNDING="off", CRITIC_ROUNDS="2")
    run = await run_deep_session(settings, QUESTION)
    assert not run.failures, run.failures
    reviews = run.of_type(ReportReviewed)
    assert reviews[0].outcome == "revising" and reviews[0].unsupported_claims >= 2
    assert reviews[-1].outcome == "clean"
    revision = next(
        body for body in stack.llm.requests if "## Reviewer findings" in str(body["messages"])
    )
    assert "Python 2.7" in str(revision["messages"])
    assert run.report is not None and _made_up_in(run.report.report) == []
