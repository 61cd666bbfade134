"""Real model output, replayed: whole `deepresearch run` sessions against recorded cassettes.

Each cassette under tests/fixtures/transcripts/ is a real model's side of one session
(recorded with `uv run python bench/record_transcripts.py`, which documents the scenarios). The
engine runs the recorded command again against a strict replay server: every request it sends
must be one the real model was sent (dates and call ids aside), and every recorded exchange
must be asked for. Drift between the engine and its recordings fails here with the first
differing message named; re-record the scenario when the change is intended.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.cli import main
from engine.config import Settings
from engine.events import (
    ClarificationRequested,
    PlanProposed,
    ReportReady,
    ResearchUnitUpdated,
    RunFinished,
    ToolCalled,
)
from engine.nodes.verify import UNVERIFIED_BANNER
from engine.quick.answer import QUOTED_FOR_MARKERS, QUOTED_INSTEAD
from engine.quick.graph import COPY_NOTICE, MARKER_NOTICE
from tests.e2e.harness import SAMPLE_CORPUS, outside_corpus, read_jsonl
from tests.fixtures.replay_server import ReplayServer
from tests.fixtures.transcripts import TRANSCRIPTS_DIR, load_cassette


@dataclass(frozen=True)
class Expected:
    """What the recorded session showed, and so what its replay must show again."""

    exit_code: int
    verified: bool
    min_kept_citations: int = 0
    deep: bool = False
    min_searches: int = 1
    banner: str | None = None
    # The model copied its search results back: the answer is the best of them, quoted.
    quoted_instead: bool = False
    # The model cited a source where the fact should be: its sources' sentences, quoted.
    quoted_for_markers: bool = False
    # The model began copying a search result: its reply was stopped there and asked again.
    asked_again_after_copy: bool = False
    # The model wrote a passage number where its fact should be: it was asked again once.
    asked_again_for_marker: bool = False


EXPECTED: dict[str, Expected] = {
    # Each quick answer was one call without tools, from the passages of the engine's own
    # search ("is 128", "is 20.18.1 … [1]", "a 408 REQUEST TIME OUT"), cited to the page read.
    # (An answer that only copies the results shown is replaced by their best sentences,
    # quoted: tests/unit/compat/test_echoed_results.py.)
    "quick_asyncio_cancel": Expected(exit_code=0, verified=True, min_kept_citations=1),
    "quick_lru_cache_default": Expected(exit_code=0, verified=True, min_kept_citations=1),
    # Nothing retrieved answers it. Given the passages, the model answered "The 1998 FIFA World
    # Cup final was won by Brazil." (wrong, from memory, citing nothing): grounding marks it,
    # and the answer is reported unverified (exit 4), with the banner that says so, not passed
    # off as research.
    "quick_off_corpus": Expected(
        exit_code=4, verified=False, min_searches=1, banner=UNVERIFIED_BANNER
    ),
    # Over undici's pages: asked for one or two sentences, "… is [24]." (a marker where the
    # version should be, and no passage 24); asked again once, the same; then, with the tools,
    # the same again: the answer quotes its sources' best sentences under a lead-in saying why.
    "quick_marker_as_fact": Expected(
        exit_code=0,
        verified=True,
        min_kept_citations=1,
        quoted_for_markers=True,
        asked_again_for_marker=True,
    ),
    # Over the httpd manual: once a copy of the results, stopped and asked again; given the
    # passages first, the model answered in its own words.
    "quick_copy_stopped": Expected(exit_code=0, verified=True, min_kept_citations=1),
    # Plan → two researchers, each answering in one turn from its track's passages (no forced
    # search repeating the engine's; five findings each) → a report written section by
    # section, the critic finding nothing to fix, then the support judge; verified.
    "deep_capped": Expected(exit_code=0, verified=True, min_kept_citations=2, deep=True),
}

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CASSETTES = sorted(TRANSCRIPTS_DIR.glob("*.jsonl"))
# Cassettes whose requests the engine no longer sends, until recorded again against the
# local model (bench/record_transcripts.py). Strict: a cassette that replays again fails
# here until its entry goes.
TO_RECORD_AGAIN: dict[str, str] = {}
REPLAYED = [
    pytest.param(
        path,
        id=path.stem,
        marks=[pytest.mark.xfail(strict=True, reason=TO_RECORD_AGAIN[path.stem])]
        if path.stem in TO_RECORD_AGAIN
        else [],
    )
    for path in CASSETTES
]


def test_every_expected_scenario_has_its_cassette() -> None:
    recorded = {path.stem for path in CASSETTES}
    assert set(EXPECTED) <= recorded, sorted(set(EXPECTED) - recorded)
    assert recorded <= set(EXPECTED), f"no expectations for {sorted(recorded - set(EXPECTED))}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("cassette_path", REPLAYED)
def test_recorded_session_replays_whole(
    cassette_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, data_dir: Path
) -> None:
    cassette = load_cassette(cassette_path)
    header = cassette.header or {}
    expected = EXPECTED[cassette.name]
    argv = shlex.split(str(header["command"]))[1:]  # drop the program name
    for field in Settings.model_fields:  # only the recorded settings count
        monkeypatch.delenv(field.upper(), raising=False)
    env = {name: str(value) for name, value in (header.get("env") or {}).items()}
    if "DOCUMENTS_PATH" in env:
        # Recorded from the project's root over a folder of its own, in a data folder that
        # indexed nothing else (search ranking depends on what the index holds).
        env["DOCUMENTS_PATH"] = str(PROJECT_ROOT / env["DOCUMENTS_PATH"])
        data_dir = tmp_path / "own-data"
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    empty_env = tmp_path / "empty.env"
    empty_env.write_text("", encoding="utf-8")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty_env))
    monkeypatch.setenv("DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    out, events_file = tmp_path / "report.md", tmp_path / "events.jsonl"

    with ReplayServer(cassette, strict=True) as llm:
        monkeypatch.setenv("ORCHESTRATOR_BASE_URL", llm.base_url)
        code = main([*argv, "--out", str(out), "--events", str(events_file)])
        assert not llm.unmatched, llm.describe_unmatched()
        assert not llm.book.unserved, f"never asked: exchanges {llm.book.unserved}"
        last_messages = [str(body["messages"][-1].get("content")) for body in llm.requests]
    assert any(COPY_NOTICE in text for text in last_messages) is expected.asked_again_after_copy
    asked_for_marker = any(MARKER_NOTICE in text for text in last_messages)
    assert asked_for_marker is expected.asked_again_for_marker

    events = read_jsonl(events_file)
    assert code == expected.exit_code
    report = next(e for e in reversed(events) if isinstance(e, ReportReady))
    assert (report.verification_status == "verified") is expected.verified
    assert len(report.kept_citations) >= expected.min_kept_citations
    corpus = Path(env["DOCUMENTS_PATH"]) if "DOCUMENTS_PATH" in env else SAMPLE_CORPUS
    assert outside_corpus(report, corpus) == []
    assert (QUOTED_INSTEAD in report.report) is expected.quoted_instead, report.report
    assert (QUOTED_FOR_MARKERS in report.report) is expected.quoted_for_markers, report.report
    if expected.banner:
        assert expected.banner in out.read_text(encoding="utf-8")
    searches = [e for e in events if isinstance(e, ToolCalled) and e.tool == "search_web"]
    assert len({e.call_id for e in searches}) >= expected.min_searches
    assert not any(isinstance(e, ClarificationRequested) for e in events) or "--yes" in argv
    if expected.deep:
        assert any(isinstance(e, PlanProposed) for e in events)
        units = [e.unit for e in events if isinstance(e, ResearchUnitUpdated)]
        assert any(unit.status == "completed" for unit in units)
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert finished and finished[-1].status == "completed"
