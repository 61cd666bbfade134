"""The opt-in LLM judge of `deepresearch eval` (`ENABLE_ONLINE_EVALS=true`).

The judge grades each report a session wrote on the rubric of `engine.evals.rubric`. It is a
model like the engine's roles, reached through the same OpenAI-compatible client
(`engine.models.factory`): the server's profile is probed or read from the cache, JSON is
asked for by the method the server supports (json_schema → json_object → tool → text),
the prompt is fitted to `MODEL_MAX_INPUT_TOKENS`, replies are capped, transient failures
retried. Its model and endpoint are `EVAL_MODEL` and `EVAL_BASE_URL`, each falling back to
the writer role's.

A reply that leaves a dimension without a valid score is answered once with what was wrong;
what is still missing after that is recorded as missing. A judge that fails on a question is
recorded on that question (status `failed` and the reason) and the eval goes on. Nothing
here is imported unless the judge is switched on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from engine.config import OFFLINE_MODEL, Settings
from engine.evals.rubric import (
    DIMENSIONS,
    VERDICT_SCHEMA,
    Verdict,
    correction_prompt,
    merge,
    read_verdict,
    system_prompt,
    user_prompt,
)
from engine.messages import message_text
from engine.models.compat.chat import STRUCTURED_ARGS
from engine.models.compat.errors import ModelCallError
from engine.models.compat.profile import endpoint_label

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from engine.evals.dataset import EvalQuestion
    from engine.evals.score import QuestionResult

# The first reply, and one more when the first left a dimension without a valid score.
JUDGE_ATTEMPTS = 2
# Sessions whose report is graded (a partial report, written at a budget, is a report too).
GRADED_STATUSES = ("completed", "partial")


class JudgeSetupError(ValueError):
    """The judge is switched on but cannot be asked; the message names the settings."""


@dataclass(frozen=True)
class JudgeTarget:
    """The judge's model and endpoint, after falling back to the writer role's."""

    model: str
    base_url: str | None

    @property
    def endpoint(self) -> str:
        return endpoint_label(self.base_url)


def judge_target(settings: Settings) -> JudgeTarget:
    """Where the judge is asked; `JudgeSetupError` when nowhere that can judge."""
    writer = settings.role_model("writer")
    target = JudgeTarget(
        settings.eval_model or writer.model, settings.eval_base_url or writer.base_url
    )
    if target.model == OFFLINE_MODEL:
        why = (
            "EVAL_MODEL=offline"
            if settings.eval_model
            else "EVAL_MODEL is unset and the writer role runs offline: no model endpoint is "
            "configured"
        )
        raise JudgeSetupError(
            "ENABLE_ONLINE_EVALS=true asks a judge model to grade each report, but the judge "
            f"would be the offline extractive model ({why}), which cannot grade. Set "
            "EVAL_MODEL and EVAL_BASE_URL to an OpenAI-compatible server (or EVAL_MODEL and "
            "OPENAI_API_KEY for OpenAI), or unset ENABLE_ONLINE_EVALS."
        )
    if target.base_url is None and settings.openai_api_key is None:
        raise JudgeSetupError(
            f"ENABLE_ONLINE_EVALS=true: the judge EVAL_MODEL={target.model} would be asked at "
            "api.openai.com, which needs OPENAI_API_KEY; set it, or set EVAL_BASE_URL to "
            "another OpenAI-compatible server."
        )
    return target


def judge_settings(settings: Settings, target: JudgeTarget) -> Settings:
    """The settings with the judge in the writer's place: the judge is built as a role is."""
    return settings.model_copy(
        update={"writer_model": target.model, "writer_base_url": target.base_url}
    )


def _payload(raw: Any) -> dict[str, Any] | str:
    """What the reply carries: the JSON the client parsed, a tool call's arguments, or text."""
    if isinstance(raw, AIMessage):
        args = raw.response_metadata.get(STRUCTURED_ARGS)
        if isinstance(args, dict):
            return args
        if raw.tool_calls:
            return dict(raw.tool_calls[0]["args"])
        return message_text(raw)
    return raw if isinstance(raw, dict | str) else ""


def _read(raw: Any) -> Verdict:
    verdict = read_verdict(_payload(raw))
    if not verdict.any_score and isinstance(raw, AIMessage) and message_text(raw).strip():
        verdict = merge(verdict, read_verdict(message_text(raw)))
    return verdict


def _tokens(raw: Any) -> tuple[int, int]:
    usage = getattr(raw, "usage_metadata", None) or {}
    return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)


class Judge:
    """Grades reports; one per eval run, so the endpoint is probed once."""

    def __init__(self, settings: Settings, *, model: BaseChatModel | None = None) -> None:
        self.target = judge_target(settings)
        if model is None:
            from engine.models.factory import make_chat_model

            model = make_chat_model(judge_settings(settings, self.target), "writer")
        self.model = model

    def _failure(self, exc: BaseException) -> str:
        who = f"the judge model {self.target.model} at {self.target.endpoint}"
        if isinstance(exc, ModelCallError):
            reason = exc.safe_message.removeprefix(f"the {exc.role} model at {exc.endpoint} ")
            reason = reason.partition("; ")[0].replace(
                "*_MODEL and *_BASE_URL", "EVAL_MODEL and EVAL_BASE_URL"
            )
            return f"{who} {reason}"
        return f"{who} failed ({type(exc).__name__})"

    async def grade(self, question: str, report: str) -> dict[str, Any]:
        """The judge's record for one report (see `record` for its fields)."""
        started = time.perf_counter()
        conversation: list[BaseMessage] = [
            SystemMessage(content=system_prompt()),
            HumanMessage(content=user_prompt(question, report)),
        ]
        structured = self.model.with_structured_output(VERDICT_SCHEMA, include_raw=True)
        verdict: Verdict | None = None
        tokens = [0, 0]
        attempts = 0
        error = ""
        try:
            for attempt in range(JUDGE_ATTEMPTS):
                attempts = attempt + 1
                result = await structured.ainvoke(conversation)
                raw = result.get("raw") if isinstance(result, dict) else result
                used = _tokens(raw)
                tokens = [tokens[0] + used[0], tokens[1] + used[1]]
                current = _read(raw)
                verdict = current if verdict is None else merge(verdict, current)
                if verdict.complete:
                    break
                said = message_text(raw).strip() if isinstance(raw, AIMessage) else ""
                if said:
                    conversation.append(AIMessage(content=said))
                conversation.append(HumanMessage(content=correction_prompt(verdict.problems)))
        except Exception as exc:  # a judge that fails never fails the eval
            error = self._failure(exc)
        return self.record(verdict, error, time.perf_counter() - started, attempts, tokens)

    def record(
        self,
        verdict: Verdict | None,
        error: str,
        seconds: float,
        attempts: int,
        tokens: list[int],
    ) -> dict[str, Any]:
        """`status` (graded | partial | failed), `scores` and `reasons` per dimension (a
        missing score is null), `error` (why a score is missing), `notes`, the judge's
        `model` and `endpoint`, `seconds`, `attempts` and its tokens."""
        verdict = verdict or Verdict()
        scores = verdict.scores
        if verdict.complete and not error:
            status = "graded"
        elif verdict.any_score:
            status = "partial"
        else:
            status = "failed"
        if not error and not verdict.complete:
            error = (
                f"the judge model gave no valid score for "
                f"{', '.join(n for n in DIMENSIONS if scores[n] is None)} in {attempts} "
                f"attempt{'s' if attempts != 1 else ''} ({'; '.join(verdict.problems)})"
            )
        return {
            "status": status,
            "scores": scores,
            "reasons": verdict.reasons,
            "error": error,
            "notes": verdict.notes,
            "model": self.target.model,
            "endpoint": self.target.endpoint,
            "seconds": round(seconds, 3),
            "attempts": attempts,
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
        }

    async def grade_result(self, question: EvalQuestion, result: QuestionResult) -> None:
        """Grade a finished session's report in place (`result.judge`)."""
        if result.status not in GRADED_STATUSES or not result.report.strip():
            result.judge = {
                "status": "skipped",
                "error": f"no report to grade (the session ended {result.status})",
            }
            return
        result.judge = await self.grade(question.question, result.report)

    async def aclose(self) -> None:
        """Close the judge's connection pool (the client owns one per endpoint)."""
        transport = getattr(getattr(self.model, "endpoint", None), "transport", None)
        client = getattr(getattr(transport, "client", None), "http_async_client", None)
        if client is not None and hasattr(client, "aclose"):
            await client.aclose()
