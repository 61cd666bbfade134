"""The report's meta lines and its verification: unretrieved citations, offline marks."""

from __future__ import annotations

from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.events import OFFLINE_NOTICE
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.nodes.report import strip_meta_lines
from engine.nodes.verify import verify_citations
from tests.helpers.scripted_model import ScriptedChatModel
from tests.unit.engine.conftest import make_settings

RECORDS = [
    EvidenceRecord(id="u-e1", claim="Alpha is fast.", source_urls=["https://a.example.org/1"]),
    EvidenceRecord(id="u-e2", claim="Beta is slow.", source_urls=["https://b.example.org/2"]),
]


def state(notes: int = 5) -> dict:
    registry = SourceRegistry.from_sources(
        urls=["https://a.example.org/1", "https://b.example.org/2"]
    )
    return {
        "question": "Alpha or beta?",
        "research_brief": "brief",
        "notes": [f"- note {i} " + "word " * 50 for i in range(notes)],
        "raw_notes": [f"raw {i}" for i in range(notes)],
        "evidence_ledger": [r.model_dump() for r in RECORDS],
        "registry": registry.to_dict(),
    }


def deps(tmp_path: Path, model, **settings) -> EngineDeps:
    return EngineDeps(
        settings=make_settings(tmp_path, **settings),
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: [],
        retry=RetryPolicy(max_retries=0),
    )


def test_meta_lines_are_stripped():
    text = "# Title\nConductResearch dispatched 3 units\nAlpha is fast [1].\ntool_call_id=abc\n"
    assert strip_meta_lines(text) == "# Title\nAlpha is fast [1]."


async def test_verification_removes_unretrieved_citations_and_marks_offline_reports(tmp_path: Path):
    engine_deps = deps(tmp_path, ScriptedChatModel.sequence([]), orchestrator_model="offline")
    runtime = Runtime(context=engine_deps)
    report = (
        "Alpha is fast [1]. Gamma is invented [2].\n\n## Sources\n"
        "[1] https://a.example.org/1\n[2] https://invented.example.com/x"
    )
    config: RunnableConfig = {"configurable": {"thread_id": "s1"}}
    result = await verify_citations({**state(), "final_report": report}, config, runtime)
    assert result["verified_report"].startswith(f"> {OFFLINE_NOTICE}\n\n")
    assert "invented.example.com" not in result["verified_report"]
    removed = result["audit"]["removed_citations"]
    assert removed == [
        {"number": 2, "source": "https://invented.example.com/x", "reason": "url_not_in_registry"}
    ]
    assert Path(result["report_path"]).name == "s1.md"
    assert Path(result["audit_path"]).name == "s1.audit.json"


async def test_a_report_that_lists_sources_but_cites_none_is_not_verified(tmp_path: Path):
    engine_deps = deps(tmp_path, ScriptedChatModel.sequence([]))
    runtime = Runtime(context=engine_deps)
    report = "Alpha is fast.\n\n## Sources\n[1] https://a.example.org/1"
    config: RunnableConfig = {"configurable": {"thread_id": "s2"}}
    result = await verify_citations({**state(), "final_report": report}, config, runtime)
    assert result["audit"]["verification_status"] == "unverified"
    assert result["audit"]["verification_reason"] == "no_inline_citations"
    assert "no sentence cites one" in result["verified_report"]


async def test_a_track_section_grounding_empties_keeps_its_heading_with_a_line(tmp_path: Path):
    from engine.nodes.track_sections import TAKEN_OUT_LINE
    from engine.schemas import ResearchPlan, ResearchTrack

    plan = ResearchPlan(
        scope="alpha and beta",
        tracks=[
            ResearchTrack(title="Alpha speed", section="Alpha", queries=["alpha"]),
            ResearchTrack(title="Beta speed", section="Beta", queries=["beta"]),
            ResearchTrack(title="Gamma speed", section="Gamma", queries=["gamma"]),
        ],
    )
    registry = SourceRegistry()
    registry.add_url("https://a.example.org/1", "Alpha", "Alpha is fast on every machine.")
    registry.add_url("https://b.example.org/2", "Beta", "Beta is slow on every machine.")
    report = (
        "# Alpha or beta?\n\n## Alpha\n\nAlpha is fast on every machine [1].\n\n"
        "## Beta\n\nBeta is slow on every machine [2].\n\n"
        "## Gamma\n\nQuantum tunnelling powers the zeppelin fleet of Atlantis [2].\n\n"
        "## Sources\n[1] Alpha: https://a.example.org/1\n[2] Beta: https://b.example.org/2\n"
    )
    runtime = Runtime(context=deps(tmp_path, ScriptedChatModel.sequence([]), grounding="strict"))
    config: RunnableConfig = {"configurable": {"thread_id": "s3"}}
    deep = {**state(), "registry": registry.to_dict(), "plan": plan.model_dump(mode="json")}
    result = await verify_citations({**deep, "final_report": report}, config, runtime)

    verified = result["verified_report"]
    assert "Atlantis" not in verified
    headings = [line for line in verified.splitlines() if line.startswith("## ")]
    assert headings == ["## Alpha", "## Beta", "## Gamma", "## Sources"]
    assert verified.split("## Gamma\n", 1)[1].split("## Sources", 1)[0].strip() == TAKEN_OUT_LINE
