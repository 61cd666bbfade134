"""Run an eval dataset: each question a normal session (plan auto-approved), N at a time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from engine.config import ResearchMode, Settings
from engine.evals.dataset import EvalQuestion
from engine.evals.score import QuestionResult, score_session
from engine.events import Event
from engine.nodes.deps import EngineDeps
from engine.nodes.failures import sanitize_run_error


async def run_questions(
    settings: Settings,
    questions: list[EvalQuestion],
    *,
    mode: ResearchMode,
    concurrency: int,
    on_result: Callable[[QuestionResult], None],
    deps: EngineDeps | None = None,
    judge: Callable[[EvalQuestion, QuestionResult], Awaitable[None]] | None = None,
) -> list[QuestionResult]:
    """Every question's result, in the dataset's order; `on_result` as each one ends.

    `judge`, when given, grades each scored result in place before `on_result` sees it (its
    time is its own, not the session's latency).
    """
    from engine.run.runner import drive, open_engine

    results: dict[str, QuestionResult] = {}
    slots = asyncio.Semaphore(max(1, concurrency))
    async with open_engine(settings, deps=deps) as session_for:

        async def one(question: EvalQuestion) -> None:
            async with slots:
                session = session_for(None)
                events: list[Event] = []

                async def keep(event: Event) -> None:
                    events.append(event)

                started = time.perf_counter()
                error = ""
                try:
                    stream = session.start(question.question, mode=mode)
                    await drive(session, stream, auto_approve=True, on_event=keep)
                except Exception as exc:  # one failing question never stops the others
                    error = sanitize_run_error(exc)
                result = score_session(question, events, time.perf_counter() - started, error)
                if judge is not None:
                    await judge(question, result)
                results[question.id] = result
                on_result(result)

        await asyncio.gather(*(one(question) for question in questions))
    return [results[question.id] for question in questions]
