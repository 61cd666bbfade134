"""The support judge through the engine's client, against a scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import tempfile
from typing import Any

import pytest

from engine.citations.registry import SourceRegistry
from engine.config.loading import settings_from_mapping
from engine.events import MetricRecorded
from engine.grounding.enforce import OFF_QUESTION_MARK, ground_report_judged
from engine.grounding.judge import JUDGE_METRIC, SYSTEM_PROMPT
from engine.grounding.judged import JUDGE_CONTRADICTED, OFF_QUESTION
from engine.grounding.support_judge import support_judge
from engine.models.factory import make_chat_model
from tests.helpers.scripted_openai_server import Answer, ScriptedOpenAIServer

SESSIONS = (
    "Session cookies expire after 30 days of inactivity. Refresh tokens expire after 90 days, "
    "and access tokens after one hour."
)
MULTIPROCESSING = (
    "join([timeout]) - If the optional argument timeout is None (the default), the method "
    "blocks until the process whose join() method is called terminates. If timeout is a "
    "positive number, it blocks at most timeout seconds."
)
QUEUE = "join() blocks until all items in the queue have been received and processed."


def _settings(base_url: str, **extra: str) -> Any:
    return settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "scripted",
            "ORCHESTRATOR_BASE_URL": base_url,
            "OPENAI_API_KEY": "x",
            "GROUNDING_JUDGE": "on",
            "LLM_MAX_RETRIES": "0",
            "MODEL_STRUCTURED_OUTPUT": "auto",
            # The endpoint's probed profile is remembered in DATA_DIR: never the person's own.
            "DATA_DIR": tempfile.mkdtemp(prefix="support-judge-"),
            **extra,
        }
    )


def _registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.add_document("sessions.md", "Sessions", SESSIONS)
    registry.add_document("multiprocessing.html", "multiprocessing", MULTIPROCESSING)
    registry.add_document("asyncio-queue.html", "Queues", QUEUE)
    return registry


def _sentences(body: dict[str, Any]) -> list[str]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return re.findall(r"^Sentence \d+: (.*)$", user, re.M)


def _judge_server(verdict_for) -> ScriptedOpenAIServer:  # type: ignore[no-untyped-def]
    def answer(body: dict[str, Any]) -> Answer:
        if body.get("tools"):
            return Answer("no native tool call")
        if (body.get("response_format") or {}).get("type") == "json_schema":
            # What the local llama-cpp server does with json_schema.
            return Answer("json_schema is not supported", status=500)
        if SYSTEM_PROMPT[:40] not in json.dumps(body["messages"]):
            return Answer('{"city": "Paris"}')  # the client's probe of the server
        verdicts = [dict(verdict_for(s), id=i) for i, s in enumerate(_sentences(body), 1)]
        return Answer(json.dumps({"verdicts": verdicts}))

    return ScriptedOpenAIServer(answer)


async def _judged(llm: ScriptedOpenAIServer, report: str, sources: dict[int, str], **kw: Any):  # type: ignore[no-untyped-def]
    settings = _settings(llm.base_url)
    judge = support_judge(settings, lambda role: make_chat_model(settings, role))
    assert judge is not None
    return await ground_report_judged(
        report,
        original=report,
        sources=sources,
        registry=_registry(),
        mode="strict",
        judge=judge,
        **kw,
    )


async def test_a_value_of_the_neighbouring_setting_is_contradicted_and_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[Any] = []
    monkeypatch.setattr("engine.grounding.judge.emit", events.append)

    def verdict(sentence: str) -> dict[str, Any]:
        if "90 days" in sentence:
            return {"verdict": "contradicted", "quote": "Session cookies expire after 30 days"}
        return {"verdict": "supported", "quote": "access tokens after one hour"}

    report = (
        "Session cookies expire after 90 days of inactivity [1]. "
        "Access tokens last one hour [1].\n\n## Sources\n[1] Sessions — sessions.md\n"
    )
    with _judge_server(verdict) as llm:
        grounded = await _judged(llm, report, {1: "sessions.md"})
        bodies = llm.requests
    wrong, right = grounded.claims
    assert (wrong.action, wrong.decided_by, wrong.reason) == (
        "removed",
        "judge",
        JUDGE_CONTRADICTED,
    )
    assert wrong.excerpt == "Session cookies expire after 30 days"
    assert SESSIONS[wrong.passage_offset :].startswith(wrong.excerpt)
    assert (right.action, right.status, right.decided_by) == ("kept", "supported", "judge")
    assert "90 days" not in grounded.report and "one hour [1]." in grounded.report
    # One batch; JSON asked for by the method the server accepts; the passages were shown.
    judged = [b for b in bodies if SYSTEM_PROMPT[:40] in json.dumps(b["messages"])]
    assert len(judged) == 1 and judged[0]["response_format"]["type"] == "json_object"
    assert "Refresh tokens expire after 90 days" in json.dumps(judged[0]["messages"])
    assert judged[0]["max_tokens"] > 0
    assert [e.name for e in events if isinstance(e, MetricRecorded)] == [JUDGE_METRIC]


async def test_a_quote_not_in_the_passages_counts_as_not_found() -> None:
    def verdict(sentence: str) -> dict[str, Any]:
        return {"verdict": "supported", "quote": "Sessions never expire at all"}

    report = "Session cookies expire after 90 days of inactivity [1].\n"
    with _judge_server(verdict) as llm:
        grounded = await _judged(llm, report, {1: "sessions.md"})
    (claim,) = grounded.claims
    assert (claim.status, claim.decided_by) == ("unsupported", "judge")
    # The rules find its words in the page: marked, not removed.
    assert claim.action == "marked"


async def test_a_quick_answer_sentence_about_another_module_is_marked_off_the_question() -> None:
    def verdict(sentence: str) -> dict[str, Any]:
        about_processes = "at most timeout" in sentence
        return {"verdict": "supported", "quote": "", "answers_question": not about_processes}

    report = (
        "join(): join() blocks until all items in the queue have been received and processed "
        "[2]. join([timeout]): If timeout is a positive number, it blocks at most timeout "
        "seconds. [1]\n\n## Sources\n[1] multiprocessing — multiprocessing.html\n"
        "[2] Queues — asyncio-queue.html\n"
    )
    question = "What does asyncio.Queue.join() block until?"
    with _judge_server(verdict) as llm:
        grounded = await _judged(
            llm, report, {1: "multiprocessing.html", 2: "asyncio-queue.html"}, question=question
        )
        asked = json.dumps(llm.requests[-1]["messages"])
    on_topic, off_topic = grounded.claims
    # Both are their sources' own words; only the judge can tell which answers the question.
    assert on_topic.decided_by == off_topic.decided_by == "quote"
    assert (on_topic.action, on_topic.answers_question) == ("kept", True)
    assert (off_topic.action, off_topic.answers_question, off_topic.reason) == (
        "marked",
        False,
        OFF_QUESTION,
    )
    assert f"seconds. [1]{OFF_QUESTION_MARK}" in grounded.report
    assert question in asked


async def test_a_judge_that_fails_leaves_the_rules_verdict_and_says_so() -> None:
    def answer(body: dict[str, Any]) -> Answer:
        return Answer("overloaded", status=503)

    report = "Session cookies expire after 90 days of inactivity [1].\n"
    with ScriptedOpenAIServer(answer) as llm:
        grounded = await _judged(llm, report, {1: "sessions.md"})
    (claim,) = grounded.claims
    assert claim.decided_by == "rule" and claim.status == "supported"
    assert claim.judge_error.startswith("the judge's call failed")
    assert claim.action == "kept"


def test_the_judge_is_off_for_the_offline_model_and_on_request() -> None:
    offline = settings_from_mapping({"ORCHESTRATOR_MODEL": "offline"})
    assert offline.support_judge_model() is None
    local = _settings("http://127.0.0.1:9/v1")
    assert local.support_judge_model() is not None
    assert _settings("http://127.0.0.1:9/v1", GROUNDING_JUDGE="off").support_judge_model() is None
    own = _settings(
        "http://127.0.0.1:9/v1", SUPPORT_MODEL="small", SUPPORT_BASE_URL="http://127.0.0.1:7/v1"
    )
    target = own.support_judge_model()
    assert target is not None and (target.model, target.base_url) == (
        "small",
        "http://127.0.0.1:7/v1",
    )
