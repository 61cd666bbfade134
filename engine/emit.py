"""Emit typed events from inside graph nodes and tools.

Events travel on LangGraph's custom stream (`get_stream_writer`); `engine/run/runner.py` reads
them with `stream_mode=["updates", "custom"]` and yields them to front ends. Outside a graph
run (a tool called directly, a unit test) emitting is a silent no-op, so every tool stays
usable on its own.
"""

from __future__ import annotations

from engine.events import _Event


def emit(event: _Event) -> None:
    """Send one event to whoever streams this run; do nothing when no one does."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except (RuntimeError, KeyError, ImportError):
        return
    writer(event)
