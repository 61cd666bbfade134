"""The whole graph over the sample corpus with the offline extractive model, no network."""

from __future__ import annotations

from pathlib import Path

from engine.config import SAMPLE_CORPUS, settings_from_mapping
from engine.events import OFFLINE_NOTICE, EvidenceAdded, ResearchUnitUpdated, RuntimeProgress
from engine.models.offline.passages import clean_markup
from engine.tools.local_index import LocalIndex
from tests.e2e.harness import (
    assert_well_ordered,
    cited_sources,
    flat,
    inline_citations,
    read_jsonl,
    replay,
    report_sentences,
    run_deep_session,
    write_jsonl,
)

QUESTION = "How are asyncio tasks cancelled and how do timeouts use cancellation?"


async def test_offline_deep_session_over_the_sample_corpus(data_dir: Path, tmp_path: Path) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    assert settings.offline and settings.resolved_search_provider == "local"
    run = await run_deep_session(settings, QUESTION)

    assert not run.failures, run.failures
    assert_well_ordered(run.events)
    progress = run.of_type(RuntimeProgress)
    assert progress[-1].quality_gate_status == "pass"
    assert progress[-1].evidence_record_count >= settings.min_evidence_records
    assert progress[-1].source_domain_count >= settings.min_source_domains
    units = run.of_type(ResearchUnitUpdated)
    assert {u.unit.status for u in units} >= {"running", "completed"}
    assert run.of_type(EvidenceAdded)

    report = run.report
    assert report is not None and run.plan is not None
    assert report.offline_notice == OFFLINE_NOTICE
    assert report.verification_status == "verified"
    text = report.report
    headings = {line[3:].strip() for line in text.splitlines() if line.startswith("## ")}
    for track in run.plan.plan.tracks:
        assert track.section in headings, track.section
    assert len(report.kept_citations) >= 5
    assert report.removed_citations == []

    registry = run.registry
    sources = cited_sources(text)
    assert len(sources) >= 5 and inline_citations(text) >= 5
    assert all(registry.lookup(source) is not None for source in sources)
    assert all(registry.lookup(entry.source) is not None for entry in report.kept_citations)

    # Every sentence outside headings is quoted from a document the tools retrieved (its
    # emphasis marks dropped), under the name of its entry when it does not say it.
    index = LocalIndex(settings.index_db_path, SAMPLE_CORPUS)
    retrieved = []
    for key in registry.documents():
        document = index.document(key)
        assert document is not None
        retrieved.append(flat(clean_markup(document.text)))
    sentences = report_sentences(text)
    assert len(sentences) >= 5
    for sentence in sentences:
        label, _, quoted = sentence.partition(": ")
        assert any(sentence in page or (quoted in page and label in page) for page in retrieved), (
            sentence
        )

    # The JSONL events file replays to the same final state the live stream reached.
    events_file = tmp_path / "events.jsonl"
    write_jsonl(run.events, events_file)
    assert replay(read_jsonl(events_file)) == replay(run.events)
    assert replay(run.events).finished == "completed"


async def test_offline_sessions_are_deterministic(data_dir: Path) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(data_dir)})
    first = await run_deep_session(settings, QUESTION)
    second = await run_deep_session(settings, QUESTION)
    assert first.report is not None and second.report is not None
    assert first.report.report == second.report.report
    assert first.plan is not None and second.plan is not None
    # The same plan, proposed at another moment: only its time stamp differs.
    assert first.plan.model_dump(exclude={"at"}) == second.plan.model_dump(exclude={"at"})
