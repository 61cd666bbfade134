"""What the HTTP API accepts: request bodies, validated before anything runs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.config import ResearchMode
from engine.question_text import BlankText, cleaned_text
from engine.schemas import ResearchPlan

MAX_QUESTION_CHARS = 4_000
MAX_TEXT_CHARS = 8_000


def _not_blank(value: str) -> str:
    # The command line's own check: control characters dropped, nothing left is blank.
    try:
        return cleaned_text(value)
    except BlankText:
        raise ValueError("must not be blank") from None


class ResearchRequest(BaseModel):
    """Start a session. `auto_approve` approves the proposed plan and answers a clarifying
    question by proceeding on the most likely reading, as `deepresearch run --yes` does."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    mode: ResearchMode = "auto"
    auto_approve: bool = False

    _question_not_blank = field_validator("question")(_not_blank)


class PlanReview(BaseModel):
    """The person's decision on a proposed plan."""

    model_config = ConfigDict(extra="forbid")

    action: str = Field(pattern="^(approve|edit|revise|cancel)$")
    plan: ResearchPlan | None = None
    feedback: str = Field(default="", max_length=MAX_TEXT_CHARS)


class ClarificationAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)

    _answer_not_blank = field_validator("answer")(_not_blank)


class FollowUp(BaseModel):
    """A follow-up question in a finished session."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    mode: ResearchMode = "auto"
    auto_approve: bool = False

    _question_not_blank = field_validator("question")(_not_blank)
