"""The eval judge against a real model's recorded replies (no model needed).

`tests/fixtures/transcripts/judge/eval_judge_pair.jsonl` was recorded by
`uv run python bench/record_judge_transcript.py` against the local model: `deepresearch eval`
with the judge on, its probe of the server and every judge call. Its header keeps each
question and report the judge was shown and what the judge gave. Here the judge code grades
the same reports again against a strict replay server: every request it sends must be one
the real model was sent, every recorded exchange must be asked for, and the grades read from
the real replies must be the ones the recording run read. A change to the rubric or the
prompt fails here with the first differing message named; re-record when it is intended.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import Settings, settings_from_mapping
from engine.evals.judge import Judge
from engine.evals.rubric import DIMENSIONS, SCORE_MAX, SCORE_MIN
from tests.fixtures.replay_server import ReplayServer
from tests.fixtures.transcripts import TRANSCRIPTS_DIR, Cassette, load_cassette

CASSETTE = TRANSCRIPTS_DIR / "judge" / "eval_judge_pair.jsonl"


def replay_settings(cassette: Cassette, base_url: str, data_dir: Path) -> Settings:
    env = dict((cassette.header or {}).get("env") or {})
    env.update({"EVAL_BASE_URL": base_url, "DATA_DIR": str(data_dir)})
    env.setdefault("OPENAI_API_KEY", "sk-replay")
    return settings_from_mapping(env)


async def grade_all(cassette: Cassette, tmp_path: Path) -> tuple[list[dict], ReplayServer]:
    items = (cassette.header or {})["graded"]
    with ReplayServer(cassette, strict=True) as llm:
        judge = Judge(replay_settings(cassette, llm.base_url, tmp_path / "data"))
        try:
            records = [await judge.grade(item["question"], item["report"]) for item in items]
        finally:
            await judge.aclose()
    return records, llm


@pytest.mark.timeout(120)
async def test_the_recorded_judge_replays_to_the_same_grades(tmp_path: Path) -> None:
    cassette = load_cassette(CASSETTE)
    items = (cassette.header or {})["graded"]
    assert items, "the cassette's header names no graded report"
    records, llm = await grade_all(cassette, tmp_path)
    assert not llm.unmatched, llm.describe_unmatched()
    assert not llm.book.unserved, f"never asked: exchanges {llm.book.unserved}"
    for item, record in zip(items, records, strict=True):
        recorded = item["judge"]
        assert record["status"] == recorded["status"], (item["id"], record["error"])
        assert record["scores"] == recorded["scores"]
        assert record["reasons"] == recorded["reasons"]
        assert record["attempts"] == recorded["attempts"]
        # What a real model's grades must be, whatever it wrote.
        assert record["status"] == "graded", record["error"]
        assert all(SCORE_MIN <= record["scores"][name] <= SCORE_MAX for name in DIMENSIONS)
        assert all(record["reasons"][name].strip() for name in DIMENSIONS)
