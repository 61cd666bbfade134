"""What a leg of a session run does, as data: it crosses to the engine process as it is.

A leg is one call of the session driver: start (or a follow-up question), answer a
clarifying question, review the plan, resume. The HTTP routes describe it; whichever runs the
engine (a thread of the server, or the engine process) turns it into the driver's stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from engine.events import Event
from engine.run.runner import ResearchSession

LegKind = Literal["start", "answer", "review", "resume"]
Leg = tuple[LegKind, dict[str, Any]]


def start_leg(question: str, mode: str) -> Leg:
    return ("start", {"question": question, "mode": mode})


def answer_leg(answer: str) -> Leg:
    return ("answer", {"answer": answer})


def review_leg(decision: dict[str, Any]) -> Leg:
    return ("review", {"decision": decision})


RESUME_LEG: Leg = ("resume", {})


def leg_stream(session: ResearchSession, leg: Leg) -> AsyncIterator[Event]:
    """The driver's event stream for `leg`."""
    from engine.schemas import PlanDecision

    kind, args = leg
    if kind == "start":
        return session.start(args["question"], mode=args["mode"])
    if kind == "answer":
        return session.answer_clarification(args["answer"])
    if kind == "review":
        return session.review_plan(PlanDecision.model_validate(args["decision"]))
    return session.resume()
