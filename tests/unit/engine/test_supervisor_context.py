"""The supervisor's nodes take their dependencies from the run's context (`Runtime[EngineDeps]`),
and a run given none (LangGraph Server) falls back to the settings' defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.runtime import Runtime

import engine.nodes.deps as deps_module
from engine.config import load_settings
from engine.nodes.deps import deps_of
from engine.nodes.supervisor import build_supervisor_graph
from tests.unit.engine.conftest import Scenario, make_settings

DOCS = Path(__file__).resolve().parents[3] / "docs" / "samples"


@pytest.fixture
def server_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment of a server process: settings from the environment alone."""
    monkeypatch.setattr(deps_module, "_SETTINGS_DEPS", {})
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "server"))
    monkeypatch.setenv("DOCUMENTS_PATH", str(DOCS))
    monkeypatch.setenv("SEARCH_PROVIDER", "local")
    empty = tmp_path / "empty.env"
    empty.write_text("")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty))


async def test_the_subgraph_researches_with_the_dependencies_it_is_streamed_with(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    state = {
        "research_brief": "Compare alpha, beta and gamma",
        "plan": scenario.plan().model_dump(mode="json"),
        "run_number": 1,
    }
    graph = build_supervisor_graph()
    out = await graph.ainvoke(state, {"recursion_limit": 100}, context=scenario.deps(settings))
    assert sorted(scenario.researcher_runs) == ["alpha", "beta", "gamma"]
    assert out["gate_status"] == "pass"
    assert sorted(out["research_units"]) == ["unit-1", "unit-2", "unit-3"]


def test_a_context_that_is_engine_deps_is_used_as_it_is(tmp_path: Path, server_env: None):
    given = Scenario().deps(make_settings(tmp_path))
    assert deps_of(Runtime(context=given)) is given


def test_a_run_without_engine_deps_gets_the_settings_defaults_once(server_env: None):
    fallback = deps_of(None)
    assert fallback.settings == load_settings()
    assert deps_of(Runtime(context=None)) is fallback
    # LangGraph Server passes a run's context as JSON, never as Python objects.
    assert deps_of(Runtime(context={"user_id": "someone"})) is fallback


def test_the_defaults_follow_changed_settings(server_env: None, monkeypatch: pytest.MonkeyPatch):
    before = deps_of(None)
    monkeypatch.setenv("MAX_RESEARCHER_ITERATIONS", "3")
    after = deps_of(None)
    assert after is not before
    assert after.settings.max_researcher_iterations == 3
