"""Where a citation leads: its source (the web page's URL or the document's key, with the text
it returned to the research), what the source said for each sentence citing it, and the
evidence that cites it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.text import Text

from tui.presentation.formatting import is_web_source
from tui.presentation.labels import unit_label
from tui.screens.detail import DetailScreen, field, heading

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord
    from engine.events import CitationAuditEntry, ClaimSupport

_STATUS_STYLES = {"supported": "green", "weak": "yellow", "unsupported": "red"}


class CitationDetailScreen(DetailScreen):
    def __init__(
        self,
        number: int,
        entry: CitationAuditEntry | None,
        evidence: list[EvidenceRecord],
        claims: list[ClaimSupport] | None = None,
    ) -> None:
        super().__init__()
        self.number, self.entry, self.evidence = number, entry, evidence
        self.claims = claims or []
        self.title_text = f"Citation [{number}]"

    def lines(self) -> Iterable[Text]:
        yield heading("Source entry")
        if self.entry is None:
            yield Text(
                f"[{self.number}] is not in the verified sources list of this report.",
                style="yellow",
            )
        else:
            yield from source_lines(self.entry)
        if self.claims:
            yield heading(f"Sentences citing it ({len(self.claims)})")
        for claim in self.claims:
            line = Text.assemble(
                (f"{claim.status} {claim.score:.2f}", _STATUS_STYLES.get(claim.status, "")),
                (f"  {claim.action}", "dim"),
                f"\n  {claim.text}",
            )
            if claim.excerpt:
                line.append("\n  the source says: ", style="dim")
                line.append(claim.excerpt, style="italic")
            if claim.reason and claim.status != "supported":
                line.append(f"\n  {claim.reason}", style="dim")
            yield line
        yield heading(f"Evidence citing it ({len(self.evidence)})")
        if not self.evidence:
            yield Text("No ledger record is bound to this source.", style="dim")
        for record in self.evidence:
            line = Text.assemble((f"[{record.id}] ", "bold"), record.claim)
            line.append(f"\n  confidence {record.confidence:.2f}", style="dim")
            if record.research_unit_id:
                line.append(f" · unit {unit_label(record.research_unit_id)}", style="dim")
            yield line


def source_lines(entry: CitationAuditEntry) -> Iterable[Text]:
    """The source itself: its title, where it is, and the text it returned."""
    web = is_web_source(entry.source)
    line = Text.assemble((f"[{entry.number}] ", "bold"))
    if entry.title:
        line.append(f"{entry.title}\n    ", style="bold")
    line.append(entry.source, style="underline")
    yield line
    if entry.reason:
        yield field("Verifier", entry.reason)
    yield heading("From the web page" if web else "From the document")
    if entry.excerpt:
        yield Text(entry.excerpt)
    else:
        yield Text("This report keeps no text of the source.", style="dim")
