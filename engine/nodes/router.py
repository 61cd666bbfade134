"""Choose between the quick path and deep research, and honour the person's override.

The classifier is one structured-output call (`RouteDecision`: quick | deep plus a one-line
reason). It must never block a run: any model failure routes to deep research, the path that
can answer every question, with the reason "classifier unavailable".
"""

from __future__ import annotations

from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from engine.config import ResearchMode
from engine.logs import get_logger
from engine.model_task import ModelTask, task_config
from engine.schemas import RouteDecision

logger = get_logger("router")  # into DATA_DIR/logs/deepresearch.log

CLASSIFIER_UNAVAILABLE = "classifier unavailable"
MAX_REASON_CHARS = 200

ROUTER_PROMPT = """\
You decide how a research question should be handled.

quick: a simple factual lookup, a single-step question, a definition, a date or number, or a \
straightforward comparison of two things that a few searches can answer.
deep: a question that needs several lines of investigation, a survey or analysis of a field, \
trade-offs across many options, a long report, or evidence weighed from many sources.

When unsure, choose deep. Reply with the mode and one short line saying why."""


def _one_line(reason: str) -> str:
    line = " ".join(reason.split())
    if len(line) > MAX_REASON_CHARS:
        line = line[: MAX_REASON_CHARS - 1].rstrip() + "…"
    return line


def _unavailable() -> RouteDecision:
    return RouteDecision(mode="deep", reason=CLASSIFIER_UNAVAILABLE)


async def classify_route(model: BaseChatModel, question: str) -> RouteDecision:
    """Classify a question as quick or deep; deep with "classifier unavailable" on failure."""
    try:
        classifier = model.with_structured_output(RouteDecision)
        raw = await classifier.ainvoke(
            [SystemMessage(content=ROUTER_PROMPT), HumanMessage(content=question)],
            config=task_config(ModelTask(role="route", question=question)),
        )
        decision = raw if isinstance(raw, RouteDecision) else RouteDecision.model_validate(raw)
    except Exception as exc:
        # Only the exception type is logged: provider messages can carry hosts or keys.
        logger.warning("route classifier failed: %s", type(exc).__name__)
        return _unavailable()
    return RouteDecision(mode=decision.mode, reason=_one_line(decision.reason))


def resolve_route(
    requested: ResearchMode, classified: RouteDecision | None
) -> tuple[RouteDecision, bool]:
    """The route to take and whether the person's choice overrode the classifier.

    `auto` follows the classifier (deep when there is none). An explicit `quick` or `deep`
    always wins and is reported as overridden; the reason names what the classifier said
    when it disagreed, so the UI can show both.
    """
    if requested == "auto":
        return (classified or _unavailable()), False
    mode: Literal["quick", "deep"] = requested
    reason = f"{mode} mode chosen by you"
    if classified is not None and classified.mode != mode and classified.reason:
        reason += f"; the classifier suggested {classified.mode}: {classified.reason}"
    elif classified is not None and classified.mode != mode:
        reason += f"; the classifier suggested {classified.mode}"
    return RouteDecision(mode=mode, reason=_one_line(reason)), True


async def decide_route(
    model: BaseChatModel, question: str, requested: ResearchMode
) -> tuple[RouteDecision, bool]:
    """Resolve a route, asking the classifier only in `auto` mode (saves a round trip)."""
    classified = await classify_route(model, question) if requested == "auto" else None
    return resolve_route(requested, classified)
