"""Where a citation leads: its entry in the Sources list and the evidence that cites it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord
    from engine.events import CitationAuditEntry


class CitationDetailScreen(DetailScreen):
    def __init__(
        self,
        number: int,
        entry: CitationAuditEntry | None,
        evidence: list[EvidenceRecord],
    ) -> None:
        super().__init__()
        self.number, self.entry, self.evidence = number, entry, evidence
        self.title_text = f"Citation [{number}]"

    def lines(self) -> Iterable[Text]:
        yield heading("Source entry")
        if self.entry is None:
            yield Text(
                f"[{self.number}] is not in the verified sources list of this report.",
                style="yellow",
            )
        else:
            yield Text.assemble(
                (f"[{self.entry.number}] ", "bold"), (self.entry.source, "underline")
            )
            if self.entry.reason:
                yield field("Verifier", self.entry.reason)
        yield heading(f"Evidence citing it ({len(self.evidence)})")
        if not self.evidence:
            yield Text("No ledger record is bound to this source.", style="dim")
        for record in self.evidence:
            line = Text.assemble((f"[{record.id}] ", "bold"), record.claim)
            line.append(f"\n  confidence {record.confidence:.2f}", style="dim")
            if record.research_unit_id:
                line.append(f" · unit {record.research_unit_id}", style="dim")
            yield line
