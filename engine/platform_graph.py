"""The research graph for LangGraph Server (`langgraph dev` locally, the platform in production).

docs/deploy/langgraph.json names `make_graph`. The server owns persistence (its Postgres) and
threads; the graph is the same one the app, `deepresearch run` and `deepresearch serve` run,
with the settings of the server's environment, and it pauses with the same `interrupt()`s:
resume a clarification with the answer as a string, and plan review with a decision such as
`{"action": "approve"}` or the bare action name (see engine.schemas.PlanDecision). The typed
events of engine/events.py arrive on the `custom` stream mode; those of the research units
come from subgraphs, so a client streams with `stream_subgraphs=True` (docs/api.md).

The server streams runs with no Python objects as context (at most JSON), so the graph's
nodes, which read their dependencies from the run's context, fall back to `settings_deps()`.
Reading the settings touches files, which the server forbids on its event loop; the server
calls `make_graph` before every run, so it resolves them there in a worker thread, and the
nodes then find them without touching a file.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from engine.graph import build_graph
from engine.nodes.deps import settings_deps


async def make_graph(config: Any = None) -> Any:
    """A compiled graph without a checkpointer (the server supplies its own), its settings'
    dependencies resolved off the event loop."""
    return await asyncio.to_thread(_resolved_graph)


def _resolved_graph() -> Any:
    # A search provider that cannot work is a SettingsError here: the server fails to start
    # (it calls the factory as it loads) rather than at its first run.
    settings_deps()
    return _compiled_graph()


@functools.cache
def _compiled_graph() -> Any:
    # The graph holds no dependencies, and the server copies it for each run with its own
    # checkpointer and store: one compilation serves every run.
    return build_graph()
