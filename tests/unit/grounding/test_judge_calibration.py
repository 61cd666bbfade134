"""A model earns the support judge's verdicts under GROUNDING_JUDGE=auto by its calibration.

The judge is the engine's client against a scripted OpenAI-compatible server that answers
each calibration sentence as a good or a poor judge would.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from engine.config.loading import settings_from_mapping
from engine.doctor import collect_report_async
from engine.grounding.calibration import Calibration, calibrate, calibration_pairs
from engine.grounding.judge import SYSTEM_PROMPT
from engine.grounding.support_judge import report_judge, support_judge
from engine.models.compat.profile import (
    JUDGE_KEY,
    ModelProfile,
    cache_key,
    load_cached,
    store_detected,
)
from engine.models.factory import make_chat_model
from tests.helpers.scripted_openai_server import Answer, ScriptedOpenAIServer

PAIRS = {pair.sentence: pair for pair in calibration_pairs()}


def _settings(base_url: str, data_dir: Path, judge: str = "auto") -> Any:
    return settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "scripted",
            "ORCHESTRATOR_BASE_URL": base_url,
            "OPENAI_API_KEY": "x",
            "GROUNDING_JUDGE": judge,
            "LLM_MAX_RETRIES": "0",
            "MODEL_TOOL_CALLING": "prompted",
            "MODEL_STRUCTURED_OUTPUT": "json_object",
            "DATA_DIR": str(data_dir),
        }
    )


def _good(sentence: str) -> dict[str, Any]:
    """A judge that reads the passage: a supported pair with a quote from it."""
    pair = PAIRS[sentence]
    if pair.supported:
        return {"verdict": "supported", "quote": " ".join(pair.passage.split()[:6])}
    return {"verdict": "not_found", "quote": ""}


def _credulous(sentence: str) -> dict[str, Any]:
    """A judge that calls everything supported, quoting the passage's opening words."""
    return {"verdict": "supported", "quote": " ".join(PAIRS[sentence].passage.split()[:6])}


def _server(verdict_for: Any) -> ScriptedOpenAIServer:
    def answer(body: dict[str, Any]) -> Answer:
        if SYSTEM_PROMPT[:40] not in json.dumps(body["messages"]):
            return Answer('{"city": "Paris"}')
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        sentences = re.findall(r"^Sentence \d+: (.*)$", user, re.M)
        verdicts = [dict(verdict_for(s), id=i) for i, s in enumerate(sentences, 1)]
        return Answer(json.dumps({"verdicts": verdicts}))

    return ScriptedOpenAIServer(answer)


def _judge(settings: Any) -> Any:
    judge = support_judge(settings, lambda role: make_chat_model(settings, role))
    assert judge is not None
    return judge


def _model_for(settings: Any) -> Any:
    return lambda role: make_chat_model(settings, role)


def test_the_shipped_pairs_are_half_supported_and_none_is_settled_word_for_word() -> None:
    from engine.grounding.passages import Passage
    from engine.grounding.verbatim import found_verbatim

    pairs = calibration_pairs()
    assert sum(pair.supported for pair in pairs) * 2 == len(pairs) >= 10
    for pair in pairs:
        assert found_verbatim(pair.sentence, [Passage(pair.source, 0, pair.passage)]) is None


async def test_a_judge_that_reads_the_passages_passes(tmp_path: Path) -> None:
    with _server(_good) as llm:
        calibration = await calibrate(_judge(_settings(llm.base_url, tmp_path)))
    assert calibration is not None and calibration.passed
    assert calibration.supported_right == calibration.supported_pairs == 6
    assert calibration.unsupported_right == calibration.unsupported_pairs == 6


async def test_a_judge_that_calls_everything_supported_fails(tmp_path: Path) -> None:
    with _server(_credulous) as llm:
        calibration = await calibrate(_judge(_settings(llm.base_url, tmp_path)), whole=True)
    assert calibration is not None and not calibration.passed
    assert (calibration.supported_right, calibration.unsupported_right) == (6, 0)
    assert "0 of 6 unsupported" in calibration.describe()


async def test_asking_stops_once_the_judge_has_failed(tmp_path: Path) -> None:
    """Each batch holds both kinds, so a credulous judge fails on the first and no more is
    asked; a good judge is asked every pair."""
    with _server(_credulous) as llm:
        calibration = await calibrate(_judge(_settings(llm.base_url, tmp_path)))
        failed_after = len(llm.requests)
    with _server(_good) as llm:
        passed = await calibrate(_judge(_settings(llm.base_url, tmp_path)))
        passed_after = len(llm.requests)
    assert calibration is not None and not calibration.passed
    assert (calibration.supported_pairs, calibration.unsupported_pairs) == (2, 2)
    assert "0 of 2 unsupported" in calibration.describe()
    assert passed is not None and passed.passed
    assert failed_after == 1 and passed_after == len(calibration_pairs()) // 4


async def test_a_supported_verdict_quoting_words_the_passage_lacks_is_a_miss(
    tmp_path: Path,
) -> None:
    def invents(sentence: str) -> dict[str, Any]:
        found = _good(sentence)
        return (
            {**found, "quote": "words that appear in no passage at all"}
            if found["quote"]
            else found
        )

    with _server(invents) as llm:
        calibration = await calibrate(_judge(_settings(llm.base_url, tmp_path)))
    assert calibration is not None and calibration.supported_right == 0


async def test_a_judge_whose_calls_fail_is_not_calibrated(tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> Answer:
        return Answer("the server is down", status=500)

    with ScriptedOpenAIServer(answer) as llm:
        calibration = await calibrate(_judge(_settings(llm.base_url, tmp_path)))
    assert calibration is None


async def test_auto_calibrates_once_and_remembers_a_judge_that_passed(tmp_path: Path) -> None:
    with _server(_good) as llm:
        settings = _settings(llm.base_url, tmp_path)
        chosen = await report_judge(settings, _model_for(settings), quick=False)
        asked = len(llm.requests)
        again = await report_judge(settings, _model_for(settings), quick=False)
        assert len(llm.requests) == asked, "a remembered calibration sends nothing"
    assert chosen.judge is not None and again.judge is not None
    assert chosen.label == again.label == chosen.judge.label
    remembered = load_cached(settings)[cache_key(llm.base_url, "scripted")][JUDGE_KEY]
    assert remembered["passed"] is True and remembered["supported_right"] == 6


async def test_auto_leaves_the_rules_verdicts_to_a_judge_that_failed(tmp_path: Path) -> None:
    with _server(_credulous) as llm:
        settings = _settings(llm.base_url, tmp_path)
        chosen = await report_judge(settings, _model_for(settings), quick=False)
        on = await report_judge(
            _settings(llm.base_url, tmp_path, judge="on"), _model_for(settings), quick=False
        )
    assert chosen.judge is None
    assert "right on 2 of 2 supported and 0 of 2 unsupported" in chosen.label
    assert "GROUNDING_JUDGE=on" in chosen.label
    assert on.judge is not None, "on uses the judge whatever its calibration"


async def test_auto_does_not_judge_a_quick_answer_or_remember_a_failed_calibration(
    tmp_path: Path,
) -> None:
    def answer(body: dict[str, Any]) -> Answer:
        return Answer("overloaded", status=503)

    with ScriptedOpenAIServer(answer) as llm:
        settings = _settings(llm.base_url, tmp_path)
        quick = await report_judge(settings, _model_for(settings), quick=True)
        assert not llm.requests
        deep = await report_judge(settings, _model_for(settings), quick=False)
    assert quick.judge is None and "deep reports only" in quick.label
    assert deep.judge is None and "could not be calibrated" in deep.label
    assert JUDGE_KEY not in load_cached(settings).get(cache_key(llm.base_url, "scripted"), {})


def test_a_new_probe_of_the_endpoint_keeps_how_its_model_judged(tmp_path: Path) -> None:
    from engine.models.compat.profile import store_judge_calibration

    settings = _settings("http://127.0.0.1:9/v1", tmp_path)
    key = cache_key("http://127.0.0.1:9/v1", "scripted")
    store_judge_calibration(settings, key, {"passed": False, "supported_right": 1})
    store_detected(settings, key, ModelProfile(8192, "prompted", "json_object", "detected"))
    entry = load_cached(settings)[key]
    assert entry["structured_output"] == "json_object"
    assert entry[JUDGE_KEY]["supported_right"] == 1


async def test_doctor_calibrates_the_judge_again_and_says_what_auto_does(tmp_path: Path) -> None:
    from engine.models.compat.profile import store_judge_calibration

    with _server(_credulous) as llm:
        settings = _settings(llm.base_url, tmp_path)
        key = cache_key(llm.base_url, "scripted")
        # A verdict remembered from before: doctor asks the model again.
        store_judge_calibration(settings, key, Calibration(6, 6, 6, 6).as_dict())
        report = await collect_report_async(settings, calibrate_judge=True)
        skipped = await collect_report_async(settings)
    (endpoint,) = report.endpoints
    check = endpoint.capabilities[-1]
    assert check.name == "support judge" and not check.ok
    assert "0 of 2 unsupported" in check.detail and "rules' verdicts" in check.detail
    assert "support judge" in "\n".join(endpoint.render())
    assert load_cached(settings)[key][JUDGE_KEY]["passed"] is False
    assert all(c.name != "support judge" for c in skipped.endpoints[0].capabilities)


async def test_the_audit_names_why_a_deep_report_kept_the_rules_verdicts(tmp_path: Path) -> None:
    from langchain_core.runnables import RunnableConfig
    from langgraph.runtime import Runtime

    from engine.models.compat.profile import store_judge_calibration
    from engine.nodes.verify import verify_citations
    from tests.helpers.scripted_model import ScriptedChatModel
    from tests.unit.engine.test_report import deps, state

    engine_deps = deps(tmp_path, ScriptedChatModel.sequence([]), grounding_judge="auto")
    writer = engine_deps.settings.role_model("writer")
    failed = Calibration(
        supported_right=6, supported_pairs=6, unsupported_right=2, unsupported_pairs=6
    )
    store_judge_calibration(
        engine_deps.settings, cache_key(writer.base_url, writer.model), failed.as_dict()
    )
    report = "Alpha is fast [1].\n\n## Sources\n[1] https://a.example.org/1"
    config: RunnableConfig = {"configurable": {"thread_id": "s1"}}
    result = await verify_citations(
        {**state(), "final_report": report}, config, Runtime(context=engine_deps)
    )
    label = result["audit"]["grounding_judge"]
    assert label.startswith("off (gpt-test at ") and "2 of 6 unsupported" in label
    from engine.nodes.verify import report_ready_event

    assert report_ready_event(result).grounding_judge == label, "the app is told it too"
    assert all(claim["decided_by"] != "judge" for claim in result["audit"]["claims"])


async def test_a_calibration_made_on_other_pairs_is_made_again(tmp_path: Path) -> None:
    from engine.models.compat.profile import store_judge_calibration

    with _server(_credulous) as llm:
        settings = _settings(llm.base_url, tmp_path)
        passed = {**Calibration(6, 6, 6, 6).as_dict(), "pairs_version": "older-pairs"}
        store_judge_calibration(settings, cache_key(llm.base_url, "scripted"), passed)
        chosen = await report_judge(settings, _model_for(settings), quick=False)
        assert llm.requests, "the pairs changed: the model is asked again"
    assert chosen.judge is None and "0 of 2 unsupported" in chosen.label
