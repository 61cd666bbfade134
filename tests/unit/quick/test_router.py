from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, SystemMessage

from engine.nodes.router import (
    CLASSIFIER_UNAVAILABLE,
    ROUTER_PROMPT,
    classify_route,
    decide_route,
    resolve_route,
)
from engine.schemas import RouteDecision
from tests.unit.quick.quick_doubles import RecordingChatModel, calls_message

QUICK = RouteDecision(mode="quick", reason="a single fact")
DEEP = RouteDecision(mode="deep", reason="needs a survey")


def classifier_reply(mode: str, reason: str) -> AIMessage:
    return calls_message(("RouteDecision", {"mode": mode, "reason": reason}))


async def test_the_classifier_decision_is_returned_with_a_one_line_reason() -> None:
    model = RecordingChatModel.sequence([classifier_reply("quick", "a single\n  date lookup")])

    decision = await classify_route(model, "When is the next Python release?")

    assert decision == RouteDecision(mode="quick", reason="a single date lookup")
    (call,) = model.calls
    assert call.bound_tools == ("RouteDecision",)
    assert isinstance(call.messages[0], SystemMessage)
    assert call.messages[0].text == ROUTER_PROMPT
    assert call.messages[1].text == "When is the next Python release?"


async def test_a_long_reason_is_cut_to_one_short_line() -> None:
    model = RecordingChatModel.sequence([classifier_reply("deep", "word " * 100)])
    decision = await classify_route(model, "Compare every web framework")
    assert decision.mode == "deep"
    assert len(decision.reason) <= 200
    assert decision.reason.endswith("…")


@pytest.mark.parametrize(
    "reply",
    [
        ConnectionError("connect to 10.0.0.5 failed with key sk-secret"),
        AIMessage(content="I think this is quick"),  # no structured output at all
        classifier_reply("medium", "not a mode"),
    ],
)
async def test_any_classifier_failure_routes_deep(reply: object, caplog) -> None:
    model = RecordingChatModel.sequence([reply])  # type: ignore[list-item]

    decision = await classify_route(model, "anything")

    assert decision == RouteDecision(mode="deep", reason=CLASSIFIER_UNAVAILABLE)
    assert "sk-secret" not in caplog.text


def test_auto_follows_the_classifier() -> None:
    assert resolve_route("auto", QUICK) == (QUICK, False)
    assert resolve_route("auto", DEEP) == (DEEP, False)


def test_auto_without_a_classification_goes_deep() -> None:
    decision, overridden = resolve_route("auto", None)
    assert decision == RouteDecision(mode="deep", reason=CLASSIFIER_UNAVAILABLE)
    assert overridden is False


def test_an_explicit_mode_overrides_and_names_the_disagreement() -> None:
    decision, overridden = resolve_route("quick", DEEP)
    assert overridden is True
    assert decision.mode == "quick"
    assert (
        decision.reason == "quick mode chosen by you; the classifier suggested deep: needs a survey"
    )


def test_an_explicit_mode_that_agrees_still_counts_as_the_persons_choice() -> None:
    decision, overridden = resolve_route("deep", DEEP)
    assert (decision.mode, overridden) == ("deep", True)
    assert decision.reason == "deep mode chosen by you"
    assert resolve_route("deep", None) == (decision, True)


async def test_decide_route_asks_the_classifier_only_in_auto_mode() -> None:
    model = RecordingChatModel.sequence([classifier_reply("quick", "lookup")])

    assert await decide_route(model, "q", "deep") == (
        RouteDecision(mode="deep", reason="deep mode chosen by you"),
        True,
    )
    assert model.calls == []
    assert await decide_route(model, "q", "auto") == (
        RouteDecision(mode="quick", reason="lookup"),
        False,
    )
    assert len(model.calls) == 1
