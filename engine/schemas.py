"""Structured outputs and tool schemas shared by the graph, the models and the UI.

Pure pydantic, no LangChain: the UI and the event contract import these cheaply. Tool names the
models see are the class names (`ConductResearch`, `ResearchComplete`) or the tool functions'
names (`search_web`, `fetch_url`, `think_tool`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MIN_TRACKS = 3
MAX_TRACKS = 6
MAX_QUERIES_PER_TRACK = 5


class ClarifyWithUser(BaseModel):
    """Decide whether the question needs one clarifying question before research."""

    need_clarification: bool = Field(description="Whether one question must be asked first.")
    question: str = Field(default="", description="The clarifying question, if needed.")
    verification: str = Field(
        default="", description="What will be researched, when no question is needed."
    )


class ResearchBrief(BaseModel):
    """The question restated as a precise research brief."""

    research_brief: str = Field(description="A detailed brief that guides the research.")


class ResearchTrack(BaseModel):
    """One line of research, mapped to one section of the report."""

    model_config = ConfigDict(str_strip_whitespace=True)

    title: str = Field(
        min_length=3, max_length=200, description="The part of the subject this track researches."
    )
    section: str = Field(
        min_length=3, max_length=200, description="Its report section heading, naming that part."
    )
    queries: list[str] = Field(
        min_length=1,
        max_length=MAX_QUERIES_PER_TRACK,
        description="Search queries for this track.",
    )

    @field_validator("queries")
    @classmethod
    def _queries_not_blank(cls, queries: list[str]) -> list[str]:
        cleaned = [query.strip() for query in queries]
        if any(not query for query in cleaned):
            raise ValueError("a search query is empty")
        if any(len(query) > 400 for query in cleaned):
            raise ValueError("a search query is longer than 400 characters")
        return cleaned


class ResearchPlan(BaseModel):
    """The plan the person reviews: scope, 3–6 tracks, evidence strategy, output format."""

    model_config = ConfigDict(str_strip_whitespace=True)

    scope: str = Field(min_length=3, description="What is in and out of scope.")
    tracks: list[ResearchTrack] = Field(
        min_length=MIN_TRACKS, max_length=MAX_TRACKS, description="3 to 6 research tracks."
    )
    evidence_strategy: str = Field(default="", description="What counts as good evidence.")
    output_format: str = Field(default="", description="The shape of the final report.")

    @model_validator(mode="after")
    def _distinct_sections(self) -> ResearchPlan:
        seen: set[str] = set()
        for track in self.tracks:
            key = track.section.casefold()
            if key in seen:
                raise ValueError(f"two tracks share the report section {track.section!r}")
            seen.add(key)
        return self


def brief_from_text(text: str) -> ResearchBrief | None:
    """A brief written as prose (or fenced) instead of JSON; None when too short to be one."""
    cleaned = re.sub(r"^```\w*\s*|\s*```$", "", text.strip()).strip()
    if cleaned.startswith("{"):
        return None  # broken JSON is not a brief
    return ResearchBrief(research_brief=cleaned) if len(cleaned.split()) >= 8 else None


def with_distinct_sections(raw: dict[str, Any]) -> dict[str, Any]:
    """A drafted plan whose tracks' duplicate section names are told apart by their titles.

    Small models often give two tracks the same section ("Caching Function Results"); the
    plan is otherwise usable, so it is repaired rather than refused. Where the shared section
    names one of the tracks ("25.1. Routine Vacuuming" for the track "Routine Vacuuming"), it
    is that track's, and the others are named by their own titles; else the later ones add
    their titles to it.
    """
    tracks = raw.get("tracks")
    if not isinstance(tracks, list):
        return raw
    owners: dict[str, int] = {}
    for number, track in enumerate(tracks):
        section, title = _section_and_title(track)
        if section and title and _folded(title) in _folded(section):
            owners.setdefault(_folded(section), number)
    seen: set[str] = set()
    repaired = []
    for number, track in enumerate(tracks, start=1):
        section, title = _section_and_title(track)
        if section:
            owner = owners.get(_folded(section))
            if owner is not None and owner != number - 1 and title:
                section = title[:200]
            elif _folded(section) in seen and title:
                section = f"{section}: {title}"[:200]
            if _folded(section) in seen:
                section = f"{section[:190]} ({number})"
            track = {**track, "section": section}
            seen.add(_folded(section))
        repaired.append(track)
    return {**raw, "tracks": repaired}


def _section_and_title(track: Any) -> tuple[str, str]:
    if not isinstance(track, dict) or not isinstance(track.get("section"), str):
        return "", ""
    return track["section"].strip(), str(track.get("title") or "").strip()


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


class PlanDecision(BaseModel):
    """How the person resumes plan review."""

    action: Literal["approve", "edit", "revise", "cancel"]
    plan: ResearchPlan | None = None
    feedback: str = ""

    @model_validator(mode="before")
    @classmethod
    def _action_alone(cls, data: Any) -> Any:
        # What a client resuming an interrupt by hand sends first: the action's name alone.
        if isinstance(data, str):
            return {"action": data.strip().lower()}
        return data

    @model_validator(mode="after")
    def _payload_matches_action(self) -> PlanDecision:
        if self.action == "edit" and self.plan is None:
            raise ValueError("an edited approval needs the edited plan")
        if self.action == "revise" and not self.feedback.strip():
            raise ValueError("a revision needs written feedback")
        return self


class ConductResearch(BaseModel):
    """Dispatch one researcher on a focused topic."""

    research_topic: str = Field(description="The topic to research, in detail.")


class ResearchComplete(BaseModel):
    """Signal that research is complete (the quality gate decides)."""


class RouteDecision(BaseModel):
    """Whether a question is a quick lookup or needs deep research."""

    mode: Literal["quick", "deep"]
    reason: str = Field(default="", description="One line explaining the choice.")


class Claim(BaseModel):
    """One sentence of a report section and the numbered passages it rests on."""

    text: str = Field(description="One sentence restating or quoting what its passages say.")
    source_ids: list[int] = Field(
        default_factory=list, description="The ids of the passages the sentence rests on."
    )


class SectionDraft(BaseModel):
    """A report section written as claims, each citing passage ids."""

    claims: list[Claim] = Field(
        default_factory=list, description="2 to 6 sentences, each citing passage ids."
    )
