"""What a front end needs from a research session, and what it gets back.

`engine.run.runner.ResearchSession` implements `SessionDriver`; the TUI and the headless CLI talk
to it only through this protocol and the events of `engine.events`, so a test can substitute a
scripted driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from engine.config import ResearchMode
from engine.events import Event
from engine.schemas import PlanDecision

# The answer to a clarifying question when no one is there to give one (`run --yes`, the
# API's and the MCP tools' auto-approved sessions).
PROCEED_ON_LIKELY_READING = (
    "No one is available to answer (headless run). Proceed with the most likely reading of "
    "the question and state that assumption in the brief."
)

SessionStatus = Literal[
    "awaiting_clarification",
    "awaiting_plan_review",
    "running",
    "interrupted",
    "completed",
    "partial",
    "failed",
    "cancelled",
]


def is_session_id(value: str) -> bool:
    """Whether `value` can be a session id: letters, digits, '-' and '_', so it can name a
    file of the data folder and never a path of its own."""
    return bool(value) and value.replace("-", "").replace("_", "").isalnum()


class SessionNotDeleted(Exception):
    """Why a session was left as it was, in words for the person who asked to delete it."""


class SessionInfo(BaseModel):
    """One saved session, as the sessions list shows it."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    question: str
    created_at: str
    updated_at: str
    status: SessionStatus
    mode: str = "auto"
    report_path: str | None = None


class SessionDriver(Protocol):
    """Drives one session; every method yields the typed events until the run pauses or ends."""

    session_id: str

    def start(self, question: str, *, mode: ResearchMode = "auto") -> AsyncIterator[Event]:
        """Begin a new run (or a follow-up question in the same session)."""
        ...

    def answer_clarification(self, answer: str) -> AsyncIterator[Event]:
        """Resume a run paused on `ClarificationRequested`."""
        ...

    def review_plan(self, decision: PlanDecision) -> AsyncIterator[Event]:
        """Resume a run paused on `PlanProposed` (approve, edit, revise or cancel)."""
        ...

    def resume(self) -> AsyncIterator[Event]:
        """Continue an interrupted run from its last checkpoint; re-emits a pending pause."""
        ...

    async def cancel(self) -> None:
        """Stop the run in progress; the session stays resumable."""
        ...
