"""The research graph for LangGraph Server (`langgraph dev` locally, the platform in production).

`langgraph.json` names `make_graph`. The server owns persistence (its Postgres) and threads;
the graph is the same one the app, `deepresearch run` and `deepresearch serve` run, with the
settings of the server's environment, and it pauses with the same `interrupt()`s: resume a
clarification with the answer as a string, and plan review with a decision such as
`{"action": "approve"}` (see engine.schemas.PlanDecision). The typed events of
engine/events.py arrive on the `custom` stream mode.

The server streams runs with no Python objects as context (at most JSON), so the graph's
nodes, which read their dependencies from the run's context, fall back to `settings_deps()`:
the dependencies the server's settings configure, shared while those settings stay the same.
"""

from __future__ import annotations

from typing import Any

from engine.graph import build_graph
from engine.nodes.deps import settings_deps


def make_graph(config: Any = None) -> Any:
    """A compiled graph without a checkpointer: LangGraph Server supplies its own."""
    # Built now rather than at the first run, so a search provider that cannot work stops the
    # server from starting (SettingsError) instead of failing its first run.
    settings_deps()
    return build_graph()
