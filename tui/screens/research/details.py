"""The research screen's details: a unit, a record or a citation in full, the verification
audit, and the report exported or copied. Each window loads the first time it opens."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tui.screens.research.base import ResearchScreenBase
from tui.screens.research.updates import unit_detail_screen
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.units_table import UnitsTable

if TYPE_CHECKING:
    from tui.screens.export import ExportChoice


class ReaderDetails(ResearchScreenBase):
    def on_units_table_opened(self, message: UnitsTable.Opened) -> None:
        unit = self.view.units.get(message.unit_id)
        if unit is not None:
            unit = self.view.live_unit(unit)
            calls = list(self.view.tool_calls.get(unit.id, []))
            screen = unit_detail_screen()(
                unit,
                calls,
                self.view.findings_of(unit.id),
                search_provider=self.view.search_provider,
            )
            self.app.push_screen(screen)

    def on_ledger_pane_opened(self, message: LedgerPane.Opened) -> None:
        record = self.view.records_by_id.get(message.record_id)
        if record is not None:
            topic = self.view.unit_topic(record.research_unit_id) if record.research_unit_id else ""
            from tui.screens.record_detail import RecordDetailScreen

            self.app.push_screen(RecordDetailScreen(record, topic))

    def on_report_pane_citation_opened(self, message: ReportPane.CitationOpened) -> None:
        report = self.view.report
        if report is None:
            return
        from tui.screens.citation_detail import CitationDetailScreen
        from tui.view.citations import evidence_citing, source_for

        entry = source_for(report, message.number)
        evidence = evidence_citing(entry.source, self.view.records) if entry else []
        claims = [
            claim
            for claim in report.claims
            if message.number in claim.numbers and claim.action != "removed"
        ]
        self.app.push_screen(CitationDetailScreen(message.number, entry, evidence, claims))

    def on_report_pane_action_requested(self, message: ReportPane.ActionRequested) -> None:
        {"audit": self.open_audit, "export": self.export_report, "copy": self.copy_report}[
            message.action
        ]()

    def open_audit(self) -> None:
        if self.view.report is not None:
            from tui.screens.audit import AuditScreen

            self.app.push_screen(AuditScreen(self.view.report))

    def default_export_path(self) -> Path:
        folder = self.export_dir or self.link.backend.export_dir()
        return folder / f"deepresearch-{self.view.session_id or 'report'}.md"

    def export_report(self) -> None:
        """Ask where (the default folder is offered), then write and say the path."""
        if self.view.report is None:
            self.notify("No report to export yet.", severity="warning")
            return
        from tui.screens.export import ExportScreen  # dialogs load when first used

        self.app.push_screen(ExportScreen(self.default_export_path()), self._export_to)

    def _export_to(self, choice: ExportChoice | None) -> None:
        if choice is not None and self.view.report is not None:
            self.run_worker(self._write_export(choice), name="export", group="export")

    async def _write_export(self, choice: ExportChoice) -> None:
        """Write in the engine's exporter (PDF and Word take a moment), then say where."""
        report = self.view.report
        if report is None:
            return
        self.query_one(RunNotice).show_info(f"Writing {choice.path.name}…")
        try:
            written = await self.link.backend.export_report(
                report,
                question=self.view.question,
                session_id=self.view.session_id or "",
                fmt=choice.fmt,
                path=choice.path,
            )
        except OSError as error:
            reason = f"{error.strerror or 'cannot write'}: {choice.path}"
            self.query_one(RunNotice).show_info(f"Export failed: {reason}")
            self.notify(f"Export failed: {reason}", severity="error", markup=False)
            return
        self.query_one(RunNotice).show_info(f"Report exported to {written}")
        self.notify(f"Exported to {written}", markup=False)

    def copy_report(self) -> None:
        if self.view.report is None:
            return
        from tui.host.clipboard import copy_text

        result = copy_text(self.view.report.report, self.app.copy_to_clipboard)
        self.notify(result.message, severity="information" if result.copied else "warning")
