"""Scripted models and fake research tools for the engine's tests (no network).

`Scenario` plays every role from the system prompt it is given, with knobs for the cases the
tests need: clarification, how many tracks the supervisor dispatches per wave, researcher
failures or delays per topic, writer failures.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, tool

from engine.citations.registry import SourceRegistry
from engine.config import Settings, settings_from_mapping
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.schemas import (
    Claim,
    ClarifyWithUser,
    ResearchBrief,
    ResearchPlan,
    ResearchTrack,
    RouteDecision,
    SectionDraft,
)
from tests.fixtures.prompt_task import section_payload
from tests.helpers.scripted_model import (
    ScriptedChatModel,
    human_text,
    structured_reply,
    system_text,
    tool_call_message,
    tool_calls_message,
)

TOPICS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def make_settings(tmp_path: Any, **overrides: Any) -> Settings:
    values = {
        "ORCHESTRATOR_MODEL": "gpt-test",
        "OPENAI_API_KEY": "sk-test",
        "SEARCH_PROVIDER": "local",
        "DATA_DIR": str(tmp_path / "data"),
        "MIN_EVIDENCE_RECORDS": "2",
        "MIN_SOURCE_DOMAINS": "2",
        "PLANNER_SEARCHES": "0",
        "RESEARCH_MODE": "deep",
        # Scripted models answer the roles' calls only; the judge's tests switch it on.
        "GROUNDING_JUDGE": "off",
    }
    values.update({k.upper(): str(v) for k, v in overrides.items()})
    return settings_from_mapping(values)


def topic_word(topic: str) -> str:
    # A track's topic ends with the person's question, which names every track's word.
    own = topic.split("\nThe question it answers:", 1)[0].lower()
    for word in TOPICS:
        if word in own:
            return word
    return "misc"


def page_url(word: str, n: int = 1) -> str:
    return f"https://{word}.example.org/article-{n}"


def fake_tools(
    registry: SourceRegistry,
    unit_id: str | None,
    *,
    delay: float = 0.0,
    delays: dict[str, float] | None = None,
    calls: list[str] | None = None,
) -> list[BaseTool]:
    """search_web / fetch_url / think_tool that register what they return, like the real ones."""

    @tool
    async def search_web(query: str) -> str:
        """Search the web."""
        if calls is not None:
            calls.append(f"{unit_id}:{query}")
        word = topic_word(query)
        wait = (delays or {}).get(word, delay)
        if wait:
            await asyncio.sleep(wait)
        lines = [f'Search results for "{query}":', ""]
        for n in (1, 2):
            url = page_url(word, n)
            registry.add_url(url, f"{word.title()} page {n}")
            lines += [f"[{n}] {word.title()} page {n}", f"URL: {url}", f"{word} fact {n}.", ""]
        return "\n".join(lines)

    @tool
    async def fetch_url(url: str) -> str:
        """Fetch a page."""
        registry.add_url(url)
        return f"Fetched: {url}\nTitle: page\n\ntext"

    @tool
    def think_tool(reflection: str) -> str:
        """Reflect."""
        return f"Reflection recorded: {reflection}"

    return [search_web, fetch_url, think_tool]


@dataclass
class Scenario:
    """Knobs for a scripted run; `deps()` builds EngineDeps around them."""

    tracks: int = 3
    # The plan's track words (default: the first `tracks` topics); the engine researches each.
    track_words: list[str] | None = None
    wave: list[str] | None = None  # topics of the model's first wave, after the plan's tracks
    clarify: bool = False
    clarification: str = "Which region?"  # what the model asks when `clarify`
    route: str = "deep"
    researcher_delay: dict[str, float] = field(default_factory=dict)
    researcher_error: dict[str, BaseException] = field(default_factory=dict)
    researcher_sources: dict[str, int] = field(default_factory=dict)
    claims_per_unit: int = 2
    second_wave: list[str] | None = None
    writer_errors: list[BaseException] = field(default_factory=list)
    tool_delay: float = 0.0
    researcher_runs: list[str] = field(default_factory=list)
    search_calls: list[str] = field(default_factory=list)  # "unit_id:query", every search
    plan_feedback_seen: list[str] = field(default_factory=list)
    supervisor_calls: int = 0
    on_researcher_start: Callable[[str], None] | None = None
    # How the supervisor words a ConductResearch topic for a track word.
    topic_format: str = "Research {t} in depth"
    writer_prompts: list[str] = field(default_factory=list)
    _model: ScriptedChatModel | None = None

    def plan(self, suffix: str = "") -> ResearchPlan:
        words = self.track_words or [TOPICS[i] for i in range(self.tracks)]
        return ResearchPlan(
            scope=f"Scope of the question{suffix}",
            tracks=[
                ResearchTrack(
                    title=f"Track {word}{suffix}",
                    section=f"Section {word}{suffix}",
                    queries=[f"{word} query"],
                )
                for word in words
            ],
            evidence_strategy="primary sources",
            output_format="report",
        )

    # ---- role responders -------------------------------------------------------------

    def respond(self, messages: list[BaseMessage]) -> Any:
        system = system_text(messages)
        if system.startswith("You decide how a research question"):
            return structured_reply(RouteDecision(mode=self.route, reason="scripted"))  # type: ignore[arg-type]
        if system.startswith("You are scoping"):
            if self.clarify:
                return structured_reply(
                    ClarifyWithUser(need_clarification=True, question=self.clarification)
                )
            return structured_reply(ClarifyWithUser(need_clarification=False, verification="ok"))
        if system.startswith("Rewrite the research request"):
            return structured_reply(ResearchBrief(research_brief=f"Brief: {human_text(messages)}"))
        if system.startswith("You are planning"):
            if "Apply this feedback" in system:
                self.plan_feedback_seen.append(system.split("Apply this feedback:")[1].strip())
                return structured_reply(self.plan(" revised"))
            return structured_reply(self.plan())
        if system.startswith("You are the lead research supervisor"):
            return self.supervise(messages)
        if system.startswith("You are a researcher"):
            return self.research(messages)
        if system.startswith(("You write one section", "You write the summary")):
            if self.writer_errors:
                return self.writer_errors.pop(0)
            return structured_reply(self.write(messages))
        return "ok"

    def supervise(self, messages: list[BaseMessage]) -> AIMessage:
        self.supervisor_calls += 1
        answered = [m for m in messages if isinstance(m, ToolMessage)]
        rejected = any(str(m.content).startswith("[ResearchComplete rejected") for m in answered)
        dispatched_first = any(
            isinstance(m, AIMessage)
            and any(
                c["name"] == "ConductResearch" and not str(c["id"]).startswith("call_track_")
                for c in m.tool_calls
            )
            for m in messages
        )
        if not dispatched_first and self.wave:
            wave = self.wave
            return tool_calls_message(
                [
                    ("ConductResearch", {"research_topic": self.topic_format.format(t=t)})
                    for t in wave
                ]
            )
        if rejected and self.second_wave:
            wave, self.second_wave = self.second_wave, None
            return tool_calls_message(
                [
                    ("ConductResearch", {"research_topic": self.topic_format.format(t=t)})
                    for t in wave
                ]
            )
        return tool_call_message("ResearchComplete", {})

    def research(self, messages: list[BaseMessage]) -> Any:
        topic = human_text(messages)
        word = topic_word(topic)
        if not any(isinstance(m, ToolMessage) for m in messages):
            self.researcher_runs.append(word)
            if self.on_researcher_start is not None:
                self.on_researcher_start(word)
            if word in self.researcher_error:
                return self.researcher_error[word]
            return tool_call_message("search_web", {"query": f"{word} query"})
        n = self.claims_per_unit
        sentences = " ".join(
            f"The {word} finding number {i} is documented [{1 + (i - 1) % 2}]."
            for i in range(1, n + 1)
        )
        sources = "\n".join(f"[{i}] {word.title()} page {i}: {page_url(word, i)}" for i in (1, 2))
        return f"{sentences}\n\nSources:\n{sources}"

    def write(self, messages: list[BaseMessage]) -> SectionDraft:
        """A section's (or the summary's) claims: one per finding, citing its passages."""
        self.writer_prompts.append(human_text(messages))
        payload = section_payload(human_text(messages)) or {}
        if "sections" in payload:
            return SectionDraft(
                claims=[
                    Claim(text=f"In short, {s['heading']} holds.", source_ids=[1])
                    for s in payload["sections"]
                ]
            )
        return SectionDraft(
            claims=[
                Claim(text=f["text"], source_ids=f["passages"]) for f in payload.get("findings", [])
            ]
        )

    def model(self) -> ScriptedChatModel:
        self._model = ScriptedChatModel(responder=self.respond)
        return self._model

    def deps(self, settings: Settings, **kwargs: Any) -> EngineDeps:
        model = self.model()
        return EngineDeps(
            settings=settings,
            model_for=lambda role: model,
            tools_for=lambda registry, unit_id, focus=None: fake_tools(
                registry,
                unit_id,
                delay=self.tool_delay,
                delays=self.researcher_delay,
                calls=self.search_calls,
            ),
            retry=RetryPolicy(max_retries=2, base_delay=0.0),
            **kwargs,
        )


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    return make_settings(tmp_path)
