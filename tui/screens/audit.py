"""The verification audit: which citations were kept and which were removed, and why."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.events import ReportReady


class AuditScreen(DetailScreen):
    title_text = "Verification audit"

    def __init__(self, report: ReportReady) -> None:
        super().__init__()
        self.report = report

    def lines(self) -> Iterable[Text]:
        report = self.report
        status = report.verification_status
        yield field(
            "Status",
            status + (f" — {report.verification_reason}" if report.verification_reason else ""),
        )
        if report.audit_path:
            yield field("Audit file", report.audit_path)
        yield heading(f"Kept ({len(report.kept_citations)})")
        for entry in report.kept_citations:
            line = Text.assemble((f"[{entry.number}] ", "bold green"), entry.source)
            if entry.reason:
                line.append(f"  {entry.reason}", style="dim")
            yield line
        yield heading(f"Removed ({len(report.removed_citations)})")
        if not report.removed_citations:
            yield Text("No citation was removed.", style="dim")
        for entry in report.removed_citations:
            line = Text.assemble((f"[{entry.number}] ", "bold red"), entry.source)
            line.append(f"\n  reason: {entry.reason or 'not given'}")
            yield line
