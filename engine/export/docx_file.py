"""The report as a Word document (python-docx): the prose from the shared safe parser's
tokens, then the numbered sources and the audit appendix from the typed report."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from engine.export.document import ExportDocument, ExportSource
from engine.export.markup import tokens

if TYPE_CHECKING:
    from markdown_it.token import Token

_MONO = "Courier New"


def _add_inline(paragraph: Any, inline: Token) -> None:
    """The runs of one inline token: bold, italic and code kept; links as their text with the
    address after it, since only http(s) links ever parse as links."""
    bold = italic = False
    link: str | None = None
    for child in inline.children or []:
        kind = child.type
        if kind == "text":
            run = paragraph.add_run(child.content)
            run.bold, run.italic = bold or None, italic or None
        elif kind == "code_inline":
            paragraph.add_run(child.content).font.name = _MONO
        elif kind in ("softbreak", "hardbreak"):
            paragraph.add_run().add_break()
        elif kind in ("strong_open", "strong_close"):
            bold = kind == "strong_open"
        elif kind in ("em_open", "em_close"):
            italic = kind == "em_open"
        elif kind == "link_open":
            link = str(child.attrs.get("href", ""))
        elif kind == "link_close" and link:
            paragraph.add_run(f" ({link})")
            link = None


class _BodyWriter:
    """Turns the prose's block tokens into Word paragraphs, remembering the open containers."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self.lists: list[str] = []
        self.quoted = False
        self.heading_level = 0

    def block(self, token: Token) -> None:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lists.append(kind)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "heading_open":
            self.heading_level = int(token.tag[1:])
        elif kind in ("blockquote_open", "blockquote_close"):
            self.quoted = kind == "blockquote_open"
        elif kind == "inline":
            _add_inline(self.paragraph(), token)
        elif kind in ("fence", "code_block"):
            self.doc.add_paragraph().add_run(token.content.rstrip("\n")).font.name = _MONO
        elif kind == "hr":
            self.doc.add_paragraph("—" * 3)

    def paragraph(self) -> Any:
        if self.heading_level:
            level, self.heading_level = self.heading_level, 0
            return self.doc.add_heading(level=min(level, 9))
        if self.lists:
            ordered = self.lists[-1] == "ordered_list_open"
            return self.doc.add_paragraph(style="List Number" if ordered else "List Bullet")
        return self.doc.add_paragraph(style="Quote" if self.quoted else None)


def _add_body(doc: Any, markdown: str) -> None:
    writer = _BodyWriter(doc)
    for token in tokens(markdown):
        writer.block(token)


def _add_source(doc: Any, source: ExportSource) -> None:
    paragraph = doc.add_paragraph()
    paragraph.add_run(f"[{source.number}] ").bold = True
    if source.title:
        paragraph.add_run(f"{source.title} — ")
    paragraph.add_run(source.location).italic = True


def _add_audit(doc: Any, document: ExportDocument) -> None:
    doc.add_heading("Appendix: verification audit", level=1)
    for label, value in (
        ("Session", document.session_id or "unsaved"),
        ("Mode", document.mode),
        ("Citation check", document.verification),
        ("Claim grounding", document.grounding),
    ):
        doc.add_paragraph(f"{label}: {value}", style="List Bullet")
    doc.add_heading(f"Citations kept ({len(document.sources)})", level=2)
    for source in document.sources:
        doc.add_paragraph(f"[{source.number}] {source.location}", style="List Bullet")
    doc.add_heading(f"Citations removed ({len(document.removed)})", level=2)
    for entry in document.removed:
        reason = f" — {entry.reason}" if entry.reason else ""
        doc.add_paragraph(f"[{entry.number}] {entry.source}{reason}", style="List Bullet")
    if not document.removed:
        doc.add_paragraph("none")
    doc.add_heading(f"Claim support ({len(document.claims)})", level=2)
    doc.add_paragraph(document.claim_summary)
    if document.claims:
        table = doc.add_table(rows=1, cols=4)
        table.style = "Table Grid"
        header = ("Verdict", "Score", "Action", "Claim")
        for cell, text in zip(table.rows[0].cells, header, strict=True):
            cell.text = text
        for claim in document.claims:
            cells = table.add_row().cells
            claim_text = claim.text + (
                f" — {claim.reason}" if claim.reason and claim.status != "supported" else ""
            )
            for cell, text in zip(
                cells, (claim.status, f"{claim.score:.2f}", claim.action, claim_text), strict=True
            ):
                cell.text = text


def to_docx(document: ExportDocument) -> bytes:
    import docx

    doc = docx.Document()
    doc.core_properties.title = document.title
    doc.core_properties.author = "deepresearch"
    _add_body(doc, document.body)
    doc.add_heading("Sources", level=1)
    for source in document.sources:
        _add_source(doc, source)
    if not document.sources:
        doc.add_paragraph("No source kept.")
    _add_audit(doc, document)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()
