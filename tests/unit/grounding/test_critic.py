"""The critic: missing plan sections and unsupported sentences, and the writer's revisions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.grounding.critic import critique
from engine.grounding.enforce import LOST_CITATIONS
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.schemas import ResearchPlan, ResearchTrack
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.conftest import make_settings

LRU = (
    "@functools.lru_cache(maxsize=128, typed=False) Decorator to wrap a function with a "
    "memoizing callable that saves up to the maxsize most recent calls."
)
QUEUE = "Queue.join() blocks until all items in the queue have been received and processed."
PLAN = ResearchPlan(
    scope="Caching and queues in the standard library.",
    tracks=[
        ResearchTrack(
            title="lru_cache defaults", section="Caching defaults", queries=["lru_cache maxsize"]
        ),
        ResearchTrack(
            title="Queue join semantics", section="Queue joining", queries=["queue join blocks"]
        ),
        ResearchTrack(
            title="Thread pools sizing", section="Executor sizing", queries=["executor workers"]
        ),
    ],
)
RECORDS = [
    EvidenceRecord(id="a", claim="lru_cache saves up to 128 calls.", source_urls=["f.html"]),
    EvidenceRecord(
        id="b", claim="Queue join blocks until items are processed.", source_urls=["q.html"]
    ),
]
SOURCES = "## Sources\n[1] functools — f.html\n[2] Queues — q.html\n"
GOOD = f"# Report\n\n## Caching defaults\nlru_cache saves up to 128 recent calls [1].\n\n{SOURCES}"
BAD = (
    "# Report\n\n## Caching defaults\nlru_cache saves up to 128 recent calls [1]. "
    f"lru_cache evicts entries after 600 seconds [1].\n\n{SOURCES}"
)


def _registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.add_document("f.html", "functools", LRU)
    registry.add_document("q.html", "Queues", QUEUE)
    return registry


def test_the_critic_names_unsupported_sentences_and_sections_the_evidence_covers() -> None:
    found = critique(BAD, PLAN, RECORDS, _registry())
    assert [s.text for s in found.unsupported] == [
        "lru_cache evicts entries after 600 seconds [1]."
    ]
    assert "600" in found.unsupported[0].reason
    # Queue joining has ledger evidence and no section; executor sizing has no evidence.
    assert found.missing_sections == ["Queue joining"]
    instructions = found.as_instructions()
    assert 'Missing section "Queue joining"' in instructions
    assert "evicts entries after 600 seconds" in instructions


def test_a_draft_covering_the_plan_with_supported_sentences_is_clean() -> None:
    draft = GOOD.replace(
        "\n\n## Sources",
        "\n\n## Queue joining\nQueue.join() blocks until all items are "
        "processed [2].\n\n## Sources",
    )
    assert critique(draft, PLAN, RECORDS, _registry()).clean


def test_a_citation_of_an_unlisted_number_is_unsupported() -> None:
    draft = GOOD.replace("calls [1].", "calls [1]. Queue.join() blocks [7].")
    found = critique(draft, None, RECORDS, _registry())
    assert [s.reason for s in found.unsupported] == [LOST_CITATIONS]


def _state() -> dict[str, Any]:
    return {
        "question": "Caching and queues?",
        "research_brief": "brief",
        "plan": PLAN.model_dump(),
        "evidence_ledger": [r.model_dump() for r in RECORDS],
        "registry": _registry().to_dict(),
    }


def _deps(tmp_path: Path, model: ScriptedChatModel, rounds: int) -> EngineDeps:
    return EngineDeps(
        settings=make_settings(tmp_path, critic_rounds=rounds),
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: [],
        retry=RetryPolicy(max_retries=0),
    )


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    captured: list[Any] = []
    monkeypatch.setattr("engine.nodes.report.emit", captured.append)
    return captured


def test_a_sentence_repeated_through_the_draft_is_one_finding() -> None:
    repeated = BAD.replace(
        "\n\n## Sources", " lru_cache evicts entries after 600 seconds [1].\n\n## Sources"
    )
    found = critique(repeated, None, RECORDS, _registry())
    assert len(found.unsupported) == 1
