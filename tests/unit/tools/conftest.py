"""Fixtures for the research tool tests: offline servers and captured events."""

from __future__ import annotations

import pytest

from engine.events import MetricRecorded, ToolCalled
from tests.fixtures.servers import exa_server, fake_dns, web_server  # noqa: F401


class CapturedEvents(list):
    def tool_calls(self) -> list[ToolCalled]:
        return [event for event in self if isinstance(event, ToolCalled)]

    def metrics(self, name: str) -> list[MetricRecorded]:
        return [e for e in self if isinstance(e, MetricRecorded) and e.name == name]


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> CapturedEvents:
    """Every event the tools emit (they emit through `emit`, a no-op outside a graph run)."""
    captured = CapturedEvents()
    monkeypatch.setattr("engine.tools.toolkit.emit", captured.append)
    monkeypatch.setattr("engine.tools.search.emit", captured.append)
    return captured
