"""One evidence record with its sources."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tui.presentation.labels import unit_label
from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord


class RecordDetailScreen(DetailScreen):
    def __init__(self, record: EvidenceRecord, unit_topic: str = "") -> None:
        super().__init__()
        self.record = record
        self.unit_topic = unit_topic
        self.title_text = f"Evidence {record.id}"

    def lines(self) -> Iterable[Text]:
        record = self.record
        yield Text(record.claim, style="bold")
        yield field("Confidence", f"{record.confidence:.2f}")
        if record.contradiction_or_uncertainty:
            yield field("Uncertainty", record.contradiction_or_uncertainty)
        if record.research_unit_id:
            unit = unit_label(record.research_unit_id)
            yield field("Unit", f"{unit} — {self.unit_topic}" if self.unit_topic else unit)
        yield heading(f"Sources ({len(record.source_urls)})")
        for url in record.source_urls:
            yield Text(url, style="underline")
