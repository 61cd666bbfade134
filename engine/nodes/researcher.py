"""One research unit: a deepagents researcher on one topic, isolated and time-boxed.

The topic is the single human message, verbatim. The agent gets its own source registry
(merged into the session's by the state reducer), an explicit recursion limit and no
checkpointer of its own: a unit that was cut short is re-run whole on resume, so its sources
and its evidence always come from the same run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import HumanMessage

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.middleware.guarded import researcher_middleware
from engine.nodes.common import today
from engine.nodes.deps import EngineDeps
from engine.nodes.extraction import findings_from_messages
from engine.nodes.failures import sanitize_unit_failure
from engine.prompts import RESEARCHER_PROMPT, RESEARCHER_PROMPT_NO_SEARCH


@dataclass
class UnitOutcome:
    """How a research unit ended and what it found."""

    unit_id: str
    topic: str
    status: str
    started_at: float
    finished_at: float
    notes: str = ""
    raw_notes: str = ""
    records: list[EvidenceRecord] = field(default_factory=list)
    registry: dict[str, Any] = field(default_factory=dict)
    tool_call_count: int = 0
    failure_reason: str | None = None

    @property
    def duration_seconds(self) -> float:
        return round(self.finished_at - self.started_at, 3)


def researcher_prompt(deps: EngineDeps) -> str:
    settings = deps.settings
    if not deps.has_search:
        return RESEARCHER_PROMPT_NO_SEARCH.format(
            date=today(), max_tool_calls=settings.max_react_tool_calls
        )
    return RESEARCHER_PROMPT.format(
        date=today(),
        search_budget=settings.researcher_search_budget,
        max_tool_calls=settings.max_react_tool_calls,
    )


def build_researcher(deps: EngineDeps, registry: SourceRegistry, unit_id: str) -> Any:
    """A compiled deepagents researcher whose tools record into `registry`."""
    from deepagents import create_deep_agent
    from langchain.agents.middleware import TodoListMiddleware

    return create_deep_agent(
        model=deps.model_for("researcher"),
        tools=deps.tools_for(registry, unit_id),
        system_prompt=researcher_prompt(deps),
        middleware=[TodoListMiddleware(), *researcher_middleware(deps.settings, policy=deps.retry)],
        checkpointer=False,
        name=f"researcher-{unit_id}",
    )


async def run_research_unit(deps: EngineDeps, unit_id: str, topic: str) -> UnitOutcome:
    """Run one researcher to completion, timeout or failure; never raises (except cancel)."""
    settings = deps.settings
    started = deps.clock()
    registry = SourceRegistry()
    try:
        agent = build_researcher(deps, registry, unit_id)
        result = await asyncio.wait_for(
            agent.ainvoke(
                {"messages": [HumanMessage(content=topic)]},
                {"recursion_limit": deps.researcher_recursion_limit},
            ),
            timeout=settings.research_unit_timeout_seconds,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        status = "timed_out" if isinstance(exc, TimeoutError) else "failed"
        return UnitOutcome(
            unit_id,
            topic,
            status,
            started,
            deps.clock(),
            registry=registry.to_dict(),
            failure_reason=sanitize_unit_failure(exc),
        )
    findings = findings_from_messages(
        result.get("messages", []),
        registry,
        unit_id=unit_id,
        max_claims=settings.max_evidence_claims_per_research_unit,
        max_sources_per_claim=settings.max_source_urls_per_claim,
        max_bullets=settings.supervisor_notes_max_bullets,
        word_budget=settings.supervisor_notes_word_budget,
    )
    return UnitOutcome(
        unit_id,
        topic,
        "completed",
        started,
        deps.clock(),
        notes=findings.notes,
        raw_notes=findings.raw_notes,
        records=findings.records,
        registry=registry.to_dict(),
        tool_call_count=findings.tool_call_count,
    )
