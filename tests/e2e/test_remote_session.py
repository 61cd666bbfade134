"""The same graph through ChatOpenAI, Exa search and fetched pages, all on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import EvidenceAdded, RuntimeProgress
from tests.e2e.harness import (
    assert_well_ordered,
    cited_sources,
    inline_citations,
    read_jsonl,
    replay,
    report_sentences,
    run_deep_session,
    write_jsonl,
)
from tests.e2e.remote_stack import corpus_texts, remote_stack
from tests.fixtures.openai_server import FAULTS

QUESTION = "How do asyncio task groups and timeouts handle cancellation of running tasks?"
LEAKS = ("127.0.0.1", "Traceback", "http://", "site-a.test", "openai", "APITimeoutError")


@pytest.fixture
def stack():
    with remote_stack() as running:
        yield running


async def test_remote_deep_session_through_chat_completions(stack, tmp_path: Path) -> None:
    settings = stack.settings(tmp_path / "data")
    assert not settings.offline
    run = await run_deep_session(settings, QUESTION)

    assert not run.failures, run.failures
    assert_well_ordered(run.events)
    assert run.of_type(RuntimeProgress)[-1].quality_gate_status == "pass"
    assert stack.llm.served > 5 and any(r.get("tools") for r in stack.llm.requests)
    assert any(call.path == "/search" for call in stack.exa.requests)

    report = run.report
    assert report is not None and run.plan is not None
    assert report.offline_notice is None  # a remote model is not labelled offline
    headings = {line[3:].strip() for line in report.report.splitlines() if line.startswith("## ")}
    assert {t.section for t in run.plan.plan.tracks} <= headings
    sources = cited_sources(report.report)
    assert len(sources) >= 3  # the fixture corpus has three pages on this topic
    assert inline_citations(report.report) >= 5
    assert all(run.registry.lookup(source) is not None for source in sources)
    texts = corpus_texts()
    for sentence in report_sentences(report.report):
        if sentence.startswith("_") and sentence.endswith("_"):
            continue  # the engine's own notice about a section (nothing found), not a claim
        assert any(sentence in text for text in texts), sentence

    events_file = tmp_path / "events.jsonl"
    write_jsonl(run.events, events_file)
    assert replay(read_jsonl(events_file)) == replay(run.events)


@pytest.mark.parametrize("fault", FAULTS)
async def test_each_fault_is_survived(stack, tmp_path: Path, fault: str) -> None:
    settings = stack.settings(tmp_path / "data", LLM_TIMEOUT_SECONDS="1", LLM_MAX_RETRIES="3")
    stack.llm.fail(fault, times=2, retry_after=0.2, hang_seconds=3, when_tool="search_web")
    run = await run_deep_session(settings, QUESTION)
    assert stack.llm.pending_faults == 0  # the fault really reached the researchers
    before = {e.record.id for e in run.of_type(EvidenceAdded)}

    if run.failures:
        failure = run.failures[-1]
        assert failure.resumable and failure.session_id == run.session_id
        assert failure.error and not any(leak in failure.error for leak in LEAKS), failure.error
        stack.llm.clear_faults()
        run = await run_deep_session(settings, QUESTION, session_id=run.session_id, resume=True)
        assert not run.failures, run.failures

    assert run.report is not None, [e.type for e in run.events]
    assert cited_sources(run.report.report)
    kept = {record["id"] for record in run.values.get("evidence_ledger", [])}
    assert before <= kept  # no evidence lost across the fault (and a resume)


async def test_persistent_outage_stops_cleanly_and_the_session_resumes(stack, tmp_path) -> None:
    settings = stack.settings(tmp_path / "data", LLM_MAX_RETRIES="1")
    stack.llm.fail("server_error", times=50)
    run = await run_deep_session(settings, QUESTION)
    assert run.report is None and run.failures
    failure = run.failures[-1]
    assert failure.resumable and failure.session_id == run.session_id
    # It names the role and the endpoint (host:port, never a URL, key or provider text).
    leaks = tuple(leak for leak in LEAKS if leak != "127.0.0.1")
    assert failure.error and not any(leak in failure.error for leak in leaks), failure.error
    assert f"orchestrator model at 127.0.0.1:{stack.llm.port}" in failure.error

    stack.llm.clear_faults()
    resumed = await run_deep_session(settings, QUESTION, session_id=run.session_id, resume=True)
    assert not resumed.failures
    assert resumed.report is not None and cited_sources(resumed.report.report)
