"""What a model call is for, handed to the model with the call as data.

A node that calls a model says which role the model plays and what its inputs are, in the
call's run metadata (`task_config`). A real model never sees it: metadata goes to callbacks
and traces, not to the endpoint. The offline extractive model (engine/models/offline/) reads
its role and inputs from it instead of from the prompt's wording, so a prompt can be reworded
without changing what the offline model does.

The task is JSON in the metadata (traces serialise it) and carries only what the prompt
itself shows the model: the question, the plan, the person's feedback, a section's input.
Never a key, a header or a setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ConfigDict, ValidationError

from engine.schemas import ResearchPlan, ResearchTrack

ModelRole = Literal[
    "route",  # RouteDecision: quick or deep
    "clarify",  # ClarifyWithUser
    "brief",  # ResearchBrief
    "plan",  # ResearchPlan: a new plan, or the plan under review revised by feedback
    "supervisor",  # ConductResearch / ResearchComplete over the approved plan
    "researcher",  # a research unit's tool loop over one topic
    "quick",  # the quick path's answer
    "section",  # one report section from its input object
    "summary",  # the report's summary from the written sections
]
TASK_KEY = "model_task"


class ModelTask(BaseModel):
    """A model call's role and the inputs its prompt was written from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: ModelRole
    # The person's question as they asked it, a clarification answer folded in.
    question: str = ""
    # The approved plan (supervisor), or the plan the person reviewed (plan, with feedback).
    plan: ResearchPlan | None = None
    # What research units already ran for: the approved plan's tracks by index, and the
    # `ConductResearch` calls by id (a call skipped over a cap has none).
    researched_tracks: list[int] = []
    researched_calls: list[str] = []
    # The person's written feedback on `plan`.
    feedback: str = ""
    # Search results the call was shown as context (the planner's grounding searches).
    search_results: str = ""
    # The JSON object the section and summary prompts are written from.
    section: dict[str, Any] | None = None
    # The topic a researcher was given (its `ConductResearch` argument), and the approved
    # plan's track it researches when it is one.
    topic: str = ""
    track: ResearchTrack | None = None
    # The tool budget is spent: the call answers from what was found, whatever tools are bound.
    answer_now: bool = False


def task_config(task: ModelTask) -> RunnableConfig:
    """The run config that carries `task` to the model with a call."""
    return {"metadata": {TASK_KEY: task.model_dump(mode="json", exclude_defaults=True)}}


def task_in(metadata: Mapping[str, Any] | None) -> ModelTask | None:
    """The task a call's run metadata carries, if any (None when absent or malformed)."""
    raw = (metadata or {}).get(TASK_KEY)
    if not isinstance(raw, Mapping):
        return None
    try:
        return ModelTask.model_validate(dict(raw))
    except ValidationError:
        return None
