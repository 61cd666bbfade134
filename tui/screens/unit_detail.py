"""A research unit's tool calls and findings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tui.presentation.formatting import counted, format_duration
from tui.presentation.labels import tool_label, unit_label, unit_status_label
from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord
    from engine.events import ResearchUnitSummary, ToolCalled


def latest_per_call(calls: list[ToolCalled]) -> list[ToolCalled]:
    """One entry per call (its latest report: started, then succeeded or failed), in the
    order the calls began; a call reported without an id stands alone."""
    latest: dict[object, ToolCalled] = {}
    for index, call in enumerate(calls):
        latest[call.call_id or index] = call
    return list(latest.values())


class UnitDetailScreen(DetailScreen):
    def __init__(
        self,
        unit: ResearchUnitSummary,
        calls: list[ToolCalled],
        findings: list[EvidenceRecord],
        *,
        search_provider: str = "",
    ) -> None:
        super().__init__()
        self.unit, self.calls, self.findings = unit, calls, findings
        self.search_provider = search_provider
        self.title_text = f"Research unit {unit_label(unit.id)}"

    def update(
        self,
        unit: ResearchUnitSummary,
        calls: list[ToolCalled],
        findings: list[EvidenceRecord],
    ) -> None:
        """The unit's latest state, as the engine reports it while the screen is open."""
        if (unit, len(calls), len(findings)) == (self.unit, len(self.calls), len(self.findings)):
            return
        self.unit, self.calls, self.findings = unit, calls, findings
        if self.is_mounted:
            self.show_lines()

    def lines(self) -> Iterable[Text]:
        unit = self.unit
        yield field("Topic", unit.topic)
        summary = (
            f"{unit_status_label(unit.status)} · {counted(unit.tool_call_count, 'tool call')}"
            f" · {unit.evidence_count} evidence"
        )
        if unit.duration_seconds is not None:
            summary += f" · {format_duration(unit.duration_seconds)}"
        yield field("Status", summary)
        if unit.failure_reason:
            yield Text.assemble(("Failure: ", "bold red"), unit.failure_reason)
        calls = latest_per_call(self.calls)
        yield heading(f"Tool calls ({len(calls)})")
        if not calls:
            yield Text("No tool calls reported yet.", style="dim")
        for call in calls:
            yield call_line(call, self.search_provider)
        yield heading(f"Findings ({len(self.findings)})")
        if not self.findings:
            yield Text("No evidence recorded by this unit yet.", style="dim")
        yield from map(finding_line, self.findings)


def call_line(call: ToolCalled, search_provider: str = "") -> Text:
    """One tool call: what it did and its status, then its arguments, result or error."""
    line = Text.assemble((tool_label(call.tool, search_provider), "bold"), f" [{call.status}]")
    if call.duration_seconds is not None:
        line.append(f" {format_duration(call.duration_seconds)}", style="dim")
    for prefix, value, style in (
        ("\n  ", call.arguments, ""),
        ("\n  → ", call.result_summary, ""),
        ("\n  error: ", call.error, "red"),
    ):
        if value:
            line.append(prefix, style=style)
            line.append(value)
    return line


def finding_line(record: EvidenceRecord) -> Text:
    line = Text.assemble((f"[{record.id}] ", "bold"), record.claim)
    for url in record.source_urls:
        line.append("\n  ")
        line.append(url, style="underline")
    return line
