"""docs/deploy/langgraph.json: the graph LangGraph Server loads, with its interrupts."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from tests.helpers.sample_index import seed_sample_index

CONFIG = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "langgraph.json"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"


def load_factory() -> object:
    # A module path, not a file path: `langgraph dev` resolves files from its working
    # directory and `langgraph build` from the config's folder, but imports modules alike.
    spec = json.loads(CONFIG.read_text())["graphs"]["deepresearch"]
    module_name, _, attribute = spec.rpartition(":")
    return getattr(importlib.import_module(module_name), attribute)


async def test_the_served_graph_pauses_for_plan_review_and_resumes_to_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATA_DIR", str(seed_sample_index(tmp_path)))
    monkeypatch.setenv("DOCUMENTS_PATH", str(DOCS))
    monkeypatch.setenv("SEARCH_PROVIDER", "local")
    empty = tmp_path / "empty.env"
    empty.write_text("")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(empty))
    graph = await load_factory()()  # type: ignore[operator]
    assert graph.checkpointer is None  # the server brings its own
    # What the server does: attach its checkpointer, run a thread, resume its interrupts.
    graph = graph.copy(update={"checkpointer": InMemorySaver()})
    config = {"configurable": {"thread_id": "t1"}, "recursion_limit": 200}
    question = "How do asyncio queues and locks coordinate tasks?"
    await graph.ainvoke({"question": question, "mode": "deep"}, config)
    state = await graph.aget_state(config)
    assert [i.value["kind"] for i in state.interrupts] == ["plan_review"]
    # A run's context reaches the graph as JSON (here research runs with one), never as the
    # engine's dependencies: the graph falls back to those its settings configure.
    await graph.ainvoke(Command(resume={"action": "approve"}), config, context={"user": "u1"})
    state = await graph.aget_state(config)
    assert not state.next
    assert "## Sources" in state.values["verified_report"]
