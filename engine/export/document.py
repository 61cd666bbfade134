"""The report as the exporters see it: typed parts taken from the stored `ReportReady`.

Every exporter renders the same `ExportDocument`: the report's prose (its own sources section
left out), the numbered sources from the verified citations, and the audit: citations kept and
removed, each claim's support. Sources and audit come from the typed payload; only the prose,
which exists as Markdown alone, is read as Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.citations.sanitize import unsafe_url_reason

if TYPE_CHECKING:
    from engine.events import ClaimSupport, ReportReady


@dataclass(frozen=True)
class ExportSource:
    """One numbered source: its title (may be empty) and where it is (URL or document key)."""

    number: int
    title: str
    location: str

    @property
    def link(self) -> str | None:
        """The location as a link target, when it is a safe http(s) URL; else None."""
        return self.location if is_web_link(self.location) else None


@dataclass(frozen=True)
class RemovedCitation:
    number: int
    source: str
    reason: str


@dataclass(frozen=True)
class ClaimVerdict:
    text: str
    numbers: tuple[int, ...]
    status: str
    action: str
    score: float
    reason: str


@dataclass(frozen=True)
class ExportDocument:
    """Everything an exported file shows, in the order it shows it."""

    title: str
    session_id: str
    mode: str
    verification: str
    grounding: str
    body: str  # Markdown prose, without the report's own sources section
    sources: tuple[ExportSource, ...]
    removed: tuple[RemovedCitation, ...]
    claims: tuple[ClaimVerdict, ...]
    notice: str = ""

    @property
    def claim_summary(self) -> str:
        if not self.claims:
            return "No cited claim was checked."
        supported = sum(1 for claim in self.claims if claim.status == "supported")
        removed = sum(1 for claim in self.claims if claim.action == "removed")
        marked = sum(1 for claim in self.claims if claim.action == "marked")
        noun = "claim" if len(self.claims) == 1 else "claims"
        return (
            f"{len(self.claims)} {noun} checked: {supported} supported, "
            f"{removed} removed, {marked} marked."
        )


def is_web_link(location: str) -> bool:
    """Only http and https links are ever written as links; anything else stays text."""
    url = location.strip()
    if not url.lower().startswith(("http://", "https://")) or any(c.isspace() for c in url):
        return False
    return unsafe_url_reason(url) is None


def report_body(markdown: str) -> str:
    """The report's prose: its sources section is replaced by the typed sources list."""
    from engine.citations.sections import parse_report
    from engine.export.markup import separate_paragraphs, without_raw_html

    parsed = parse_report(markdown)
    kept = [text for index, text in parsed.body_blocks() if index not in parsed.section_blocks]
    return separate_paragraphs(without_raw_html("\n".join(kept).strip())) + "\n"


def _claim(claim: ClaimSupport) -> ClaimVerdict:
    return ClaimVerdict(
        text=claim.text,
        numbers=tuple(claim.numbers),
        status=claim.status,
        action=claim.action,
        score=claim.score,
        reason=claim.reason,
    )


def build_document(report: ReportReady, *, question: str, session_id: str) -> ExportDocument:
    """The exported document of a stored report."""
    from engine.export.markup import escape_text, has_title

    title = question.strip() or "Research report"
    body = report_body(report.report)
    if not has_title(body):
        body = f"# {escape_text(title)}\n\n{body}"
    verification: str = report.verification_status
    if report.verification_reason:
        verification += f" ({report.verification_reason})"
    return ExportDocument(
        title=title,
        session_id=session_id,
        mode=report.mode,
        verification=verification,
        grounding=report.grounding,
        body=body,
        sources=tuple(
            ExportSource(entry.number, entry.title.strip(), entry.source.strip())
            for entry in sorted(report.kept_citations, key=lambda entry: entry.number)
        ),
        removed=tuple(
            RemovedCitation(entry.number, entry.source, entry.reason or "")
            for entry in report.removed_citations
        ),
        claims=tuple(_claim(claim) for claim in report.claims),
        notice=report.offline_notice or "",
    )
