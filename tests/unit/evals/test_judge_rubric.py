"""The LLM judge's rubric: the prompt it is given and how its replies are read back.

The replies are the forms small models really write: JSON in a code fence after a sentence,
renamed or flattened keys, lists of grades, Markdown prose with "7/10", scores out of range
or on another scale, dimensions left out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from engine.config import settings_from_mapping
from engine.evals.judge import Judge, JudgeSetupError, judge_target
from engine.evals.rubric import (
    BANDS,
    DIMENSIONS,
    RUBRIC,
    SCORE_MAX,
    SCORE_MIN,
    VERDICT_SCHEMA,
    correction_prompt,
    dimension_of,
    merge,
    read_score,
    read_verdict,
    system_prompt,
    user_prompt,
)
from engine.models.compat.errors import ModelCallError
from tests.helpers.scripted_model import ScriptedChatModel


def grades(**scores: Any) -> dict[str, Any]:
    return {name: {"reason": f"why {name}", "score": score} for name, score in scores.items()}


FULL = grades(comprehensiveness=7, insight=5, instruction_following=8, readability=6)


# ---- the prompt ---------------------------------------------------------------------------


def test_the_system_prompt_carries_every_dimension_and_every_band_of_the_rubric() -> None:
    prompt = system_prompt()
    for name in DIMENSIONS:
        asks, bands = RUBRIC[name]
        assert f"{name} (" in prompt and asks in prompt
        for band, text in zip(BANDS, bands, strict=True):
            assert f"  {band}: {text}" in prompt
    assert f"from {SCORE_MIN} to {SCORE_MAX}" in prompt
    assert '"reason"' in prompt and '"score"' in prompt


def test_the_user_prompt_holds_the_question_then_the_whole_report_then_the_ask() -> None:
    report = "# Title\n\nThe default is 128 [1].\n\n## Sources\n[1] functools.html"
    prompt = user_prompt("  What is the default maxsize?  ", report)
    question_at = prompt.index("What is the default maxsize?")
    start, end = prompt.index("--- report start ---"), prompt.index("--- report end ---")
    assert question_at < start < prompt.index(report) < end
    assert prompt.rstrip().endswith("readability.")
    assert all(name in prompt[end:] for name in DIMENSIONS)


def test_the_schema_asks_a_reason_and_a_score_in_range_for_every_dimension() -> None:
    assert VERDICT_SCHEMA["required"] == list(DIMENSIONS)
    for name in DIMENSIONS:
        grade = VERDICT_SCHEMA["properties"][name]
        assert grade["required"] == ["reason", "score"]
        assert grade["properties"]["score"]["minimum"] == SCORE_MIN
        assert grade["properties"]["score"]["maximum"] == SCORE_MAX
    assert "$ref" not in json.dumps(VERDICT_SCHEMA)  # flat, for small models' grammars


def test_the_correction_names_what_was_wrong() -> None:
    text = correction_prompt(["insight: score 11 is outside 1-10", "readability: no score"])
    assert "insight: score 11 is outside 1-10" in text and "readability: no score" in text
    assert all(name in text for name in DIMENSIONS)


# ---- scores -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [(7, 7), (1, 1), (10, 10), ("8", 8), ("8/10", 8), ("9 out of 10", 9), (7.5, 8), ("6.4", 6)],
)
def test_a_score_on_the_scale_is_read(value: Any, expected: int) -> None:
    assert read_score(value) == (expected, "")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (0, "outside 1-10"),
        (11, "outside 1-10"),
        (-3, "outside 1-10"),
        ("75", "outside 1-10"),
        ("80/100", "not on the 1-10 scale"),
        ("4/5", "not on the 1-10 scale"),
        (True, "not a number"),
        ("seven", "not a number"),
        ([7], "not a number"),
        (None, "no score"),
        (float("nan"), "outside 1-10"),
    ],
)
def test_a_score_off_the_scale_is_refused_not_clamped(value: Any, problem: str) -> None:
    score, said = read_score(value)
    assert score is None and problem in said


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("Comprehensiveness", "comprehensiveness"),
        ("completeness", "comprehensiveness"),
        ("insightfulness", "insight"),
        ("Insight & Depth", "insight"),
        ("Instruction Following", "instruction_following"),
        ("instruction-following", "instruction_following"),
        ("readability_score", "readability"),
        ("Clarity", "readability"),
        ("overall", None),
        ("reasons", None),
    ],
)
def test_dimension_names_are_read_however_spelt(key: str, name: str | None) -> None:
    assert dimension_of(key) == name


# ---- whole replies ------------------------------------------------------------------------


def test_a_well_formed_reply_gives_every_score_and_reason() -> None:
    verdict = read_verdict(FULL)
    assert verdict.complete and not verdict.problems and not verdict.notes
    assert verdict.scores == {
        "comprehensiveness": 7,
        "insight": 5,
        "instruction_following": 8,
        "readability": 6,
    }
    assert verdict.reasons["insight"] == "why insight"


def test_json_wrapped_in_prose_and_a_code_fence_is_read() -> None:
    text = (
        "Sure! Here is my evaluation of the report.\n\n```json\n"
        + json.dumps(FULL, indent=2)
        + "\n```\n\nOverall the report is decent but shallow."
    )
    verdict = read_verdict(text)
    assert verdict.complete and verdict.scores["instruction_following"] == 8


def test_json_under_the_schema_name_with_renamed_keys_is_read() -> None:
    reply = {
        "ReportGrades": {
            "Comprehensiveness": {"rating": "7/10", "justification": "covers the default"},
            "Insightfulness": {"score": 4, "explanation": "no analysis"},
            "Instruction Following": {"score": 9, "reasoning": "answers it"},
            "Readability": {"score": 6.5, "comment": ["short", "but clear"]},
        }
    }
    verdict = read_verdict(reply)
    assert verdict.scores == {
        "comprehensiveness": 7,
        "insight": 4,
        "instruction_following": 9,
        "readability": 7,
    }
    assert verdict.reasons["readability"] == "short but clear"


def test_flat_keys_a_scores_block_and_a_list_of_grades_are_read() -> None:
    flat = {
        "comprehensiveness": 7,
        "comprehensiveness_reason": "covers it",
        "insight_score": "5",
        "insight_reasoning": "thin",
        "instruction_following": 8,
        "readability": 6,
    }
    blocks = {
        "scores": {"comprehensiveness": 7, "insight": 5, "instruction_following": 8},
        "reasons": {"comprehensiveness": "covers it", "insight": "thin"},
    }
    listed = {
        "grades": [
            {"dimension": "Comprehensiveness", "score": 7, "reason": "covers it"},
            {"name": "insight", "score": 5, "reason": "thin"},
            {"criterion": "instruction following", "score": 8, "reason": "yes"},
        ]
    }
    for reply in (flat, blocks, listed):
        verdict = read_verdict(reply)
        assert verdict.scores["comprehensiveness"] == 7 and verdict.scores["insight"] == 5
        assert verdict.scores["instruction_following"] == 8
        assert verdict.reasons["comprehensiveness"] == "covers it"
    assert read_verdict(flat).complete
    assert read_verdict(blocks).problems == ["readability: no score"]
    assert read_verdict(listed).problems == ["readability: no score"]


def test_markdown_prose_without_json_is_read() -> None:
    text = (
        "Here is my grading.\n\n"
        "**Comprehensiveness: 7/10** – The report gives the default of 128.\n"
        "**Insight: 3/10** - It only quotes the page; its readability is fine though.\n"
        "**Instruction Following (8 out of 10)**: Answers the question asked.\n"
        "**Readability — score 6**: Short, but one line is a fragment.\n"
    )
    verdict = read_verdict(text)
    assert verdict.scores == {
        "comprehensiveness": 7,
        "insight": 3,
        "instruction_following": 8,
        "readability": 6,
    }
    assert verdict.reasons["comprehensiveness"] == "The report gives the default of 128."
    assert verdict.reasons["insight"].startswith("It only quotes the page")


def test_headed_sections_with_the_score_on_a_later_line_are_read() -> None:
    text = (
        "### Comprehensiveness\nThe report covers the main point.\nScore: 6\n\n"
        "### Insight\nLittle analysis. Rating: 3/10\n\n"
        "### Readability\nClear enough.\n"
    )
    verdict = read_verdict(text)
    assert verdict.scores["comprehensiveness"] == 6 and verdict.scores["insight"] == 3
    assert verdict.reasons["comprehensiveness"] == "The report covers the main point."
    assert verdict.scores["readability"] is None
    assert verdict.problems == ["instruction_following: no score", "readability: no score"]


def test_scores_out_of_range_and_missing_dimensions_are_reported_as_missing() -> None:
    reply = {
        "comprehensiveness": {"reason": "fine", "score": 11},
        "insight": {"reason": "none", "score": 0},
        "instruction_following": {"reason": "yes", "score": "80/100"},
    }
    verdict = read_verdict(reply)
    assert verdict.scores == dict.fromkeys(DIMENSIONS)
    assert not verdict.complete and not verdict.any_score
    assert verdict.problems == [
        "comprehensiveness: score 11 is outside 1-10",
        "insight: score 0 is outside 1-10",
        "instruction_following: score '80/100' is not on the 1-10 scale",
        "readability: no score",
    ]
    # The reasons given are kept, even where the score is not.
    assert verdict.reasons["comprehensiveness"] == "fine"


@pytest.mark.parametrize("reply", [None, "", "I am sorry, I cannot grade this report.", {}])
def test_a_reply_without_grades_has_every_dimension_missing(reply: Any) -> None:
    verdict = read_verdict(reply)
    assert not verdict.any_score
    assert verdict.problems == [f"{name}: no score" for name in DIMENSIONS]


def test_a_score_without_its_reason_is_kept_and_noted() -> None:
    verdict = read_verdict({**FULL, "insight": {"score": 5}})
    assert verdict.complete and verdict.notes == ["insight: no reason given"]


def test_a_later_reply_fills_what_the_earlier_left_missing() -> None:
    first = read_verdict(grades(comprehensiveness=7, insight=11, instruction_following=8))
    second = read_verdict(grades(insight=5, readability=6))
    merged = merge(first, second)
    assert merged.complete
    assert merged.scores == {
        "comprehensiveness": 7,
        "insight": 5,
        "instruction_following": 8,
        "readability": 6,
    }


# ---- the judge's settings and its calls ---------------------------------------------------


def settings(**values: str):
    return settings_from_mapping({"DATA_DIR": "/tmp/unused-judge-data", **values})


def test_the_judge_falls_back_to_the_writers_model_and_endpoint() -> None:
    target = judge_target(
        settings(
            ENABLE_ONLINE_EVALS="true",
            ORCHESTRATOR_MODEL="big",
            ORCHESTRATOR_BASE_URL="http://127.0.0.1:9/v1",
            WRITER_MODEL="writer-model",
        )
    )
    assert (target.model, target.base_url) == ("writer-model", "http://127.0.0.1:9/v1")
    own = judge_target(
        settings(
            ORCHESTRATOR_BASE_URL="http://127.0.0.1:9/v1",
            EVAL_MODEL="judge",
            EVAL_BASE_URL="http://127.0.0.1:10/v1",
        )
    )
    assert (own.model, own.endpoint) == ("judge", "127.0.0.1:10")


def test_a_judge_that_would_be_the_offline_model_is_refused_by_name() -> None:
    for values in ({}, {"ORCHESTRATOR_MODEL": "offline", "OPENAI_API_KEY": "sk-x"}):
        with pytest.raises(JudgeSetupError) as caught:
            judge_target(settings(ENABLE_ONLINE_EVALS="true", **values))
        assert "ENABLE_ONLINE_EVALS" in str(caught.value)
        assert "EVAL_MODEL" in str(caught.value) and "offline" in str(caught.value)


def test_an_openai_judge_without_a_key_is_refused_by_name() -> None:
    with pytest.raises(JudgeSetupError) as caught:
        judge_target(settings(EVAL_MODEL="gpt-4.1"))
    assert "OPENAI_API_KEY" in str(caught.value) and "EVAL_BASE_URL" in str(caught.value)
    assert judge_target(settings(EVAL_MODEL="gpt-4.1", OPENAI_API_KEY="sk-x")).base_url is None


def judge_with(model: ScriptedChatModel) -> Judge:
    return Judge(settings(EVAL_MODEL="judge", EVAL_BASE_URL="http://127.0.0.1:9/v1"), model=model)


async def test_an_incomplete_reply_is_answered_once_with_what_was_wrong() -> None:
    first = "Comprehensiveness: 7/10. Covers it.\nInsight: 12/10. Brilliant."
    second = json.dumps(grades(insight=4, instruction_following=8, readability=6))
    model = ScriptedChatModel.sequence([first, second])
    record = await judge_with(model).grade("What is X?", "X is 1 [1].")
    assert record["status"] == "graded" and record["attempts"] == 2 and not record["error"]
    assert record["scores"] == {
        "comprehensiveness": 7,
        "insight": 4,
        "instruction_following": 8,
        "readability": 6,
    }
    retry = model.calls[1]
    assert isinstance(retry[0], SystemMessage) and isinstance(retry[-1], HumanMessage)
    assert isinstance(retry[-2], AIMessage) and retry[-2].text == first
    assert "insight: score '12/10' is outside 1-10" in retry[-1].text
    assert "readability: no score" in retry[-1].text
    assert record["input_tokens"] == 20 and record["output_tokens"] == 10


async def test_what_is_still_missing_after_the_retry_is_recorded_with_the_reason() -> None:
    partial = json.dumps(grades(comprehensiveness=6, insight=0))
    model = ScriptedChatModel.sequence([partial, partial])
    record = await judge_with(model).grade("What is X?", "X is 1 [1].")
    assert record["status"] == "partial" and record["attempts"] == 2
    assert record["scores"]["comprehensiveness"] == 6 and record["scores"]["insight"] is None
    assert "no valid score for insight, instruction_following, readability" in record["error"]
    assert "insight: score 0 is outside 1-10" in record["error"]

    model = ScriptedChatModel.sequence(["I cannot grade this.", "Still no."])
    record = await judge_with(model).grade("What is X?", "X is 1 [1].")
    assert record["status"] == "failed" and record["scores"] == dict.fromkeys(DIMENSIONS)


async def test_a_failed_call_is_recorded_with_a_reason_naming_the_judge() -> None:
    down = ModelCallError("writer", "127.0.0.1:9", "cannot be reached", retryable=True)
    record = await judge_with(ScriptedChatModel.sequence([down])).grade("Q?", "R.")
    assert record["status"] == "failed" and record["attempts"] == 1
    assert record["error"] == "the judge model judge at 127.0.0.1:9 cannot be reached"
    assert record["model"] == "judge" and record["endpoint"] == "127.0.0.1:9"

    broken = ScriptedChatModel.sequence(["Comprehensiveness: 7/10, it covers X.", RuntimeError()])
    record = await judge_with(broken).grade("Q?", "R.")
    assert record["status"] == "partial" and record["scores"]["comprehensiveness"] == 7
    assert record["error"] == "the judge model judge at 127.0.0.1:9 failed (RuntimeError)"


# Reasons the local 1.5B model gave for an offline report: the first echo the rubric.
ECHOED = {
    "comprehensiveness": "The report covers all parts of the question, with the facts, figures "
    "and details a reader needs.",
    "insight": "The report goes beyond restating its sources: it explains why and how, compares, "
    "draws conclusions, says where the evidence stops.",
}
SPECIFIC = {
    "comprehensiveness": "The report does not cover the question about the default timeout for "
    "sqlite3.connect(). It only provides information about the default timeout value.",
    "insight": "The report does not explain why the default timeout is five seconds; it simply "
    "states it without any context.",
}


def test_a_reason_that_only_echoes_the_rubric_is_noted() -> None:
    echoed = read_verdict({**FULL, **{n: {"reason": r, "score": 8} for n, r in ECHOED.items()}})
    assert echoed.complete
    assert echoed.notes == [
        "comprehensiveness: the reason restates the rubric, not the report",
        "insight: the reason restates the rubric, not the report",
    ]
    specific = read_verdict({**FULL, **{n: {"reason": r, "score": 2} for n, r in SPECIFIC.items()}})
    assert specific.notes == []
