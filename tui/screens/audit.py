"""The verification audit: citations kept and removed, and every claim's support, and why."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from engine.verification_words import verification_summary
from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.events import ReportReady


_CLAIM_STYLES = {"supported": "bold green", "weak": "bold yellow", "unsupported": "bold red"}


class AuditScreen(DetailScreen):
    title_text = "Verification audit"

    def __init__(self, report: ReportReady) -> None:
        super().__init__()
        self.report = report

    def lines(self) -> Iterable[Text]:
        report = self.report
        summary = verification_summary(
            report.verification_status,
            report.verification_reason,
            len(report.kept_citations),
            len(report.removed_citations),
        )
        # The verdict in words ("verified: 4 citations kept") heads the window unlabelled.
        style = "bold green" if report.verification_status == "verified" else "bold yellow"
        yield Text(summary, style=style)
        if report.audit_path:
            yield field("Audit file", report.audit_path)
        if report.grounding_judge:
            yield field("Judge", report.grounding_judge)
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
        yield from self._claims()

    def _claims(self) -> Iterable[Text]:
        claims = self.report.claims
        yield heading(f"Claims ({len(claims)}) — grounding {self.report.grounding}")
        if not claims:
            yield Text("No claim-level grounding was recorded.", style="dim")
        for claim in claims:
            style = _CLAIM_STYLES.get(claim.status, "")
            line = Text.assemble(
                (f"{claim.status} {claim.score:.2f}", style),
                (f"  {claim.action}", "bold" if claim.action != "kept" else "dim"),
                f"\n  {claim.text}",
            )
            if claim.reason and claim.status != "supported":
                line.append(f"\n  reason: {claim.reason}", style="dim")
            yield line
