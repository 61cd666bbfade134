"""Each export format carries the prose, the numbered sources and the audit appendix, built
from the typed stored report; HTML and Markdown carry no active content or unsafe links."""

from __future__ import annotations

import io
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine.export import export_report, render
from engine.export.document import ExportDocument, build_document
from tests.unit.export.sample_report import QUESTION, SESSION, sample_report

LOCATIONS = ("https://alpha.example.org/a", "cpu-notes.md")


@pytest.fixture(scope="module")
def document() -> ExportDocument:
    return build_document(sample_report(), question=QUESTION, session_id=SESSION)


def test_sources_come_from_the_verified_citations_in_number_order(
    document: ExportDocument,
) -> None:
    assert [(s.number, s.location) for s in document.sources] == list(enumerate(LOCATIONS, start=1))
    assert document.sources[0].link == "https://alpha.example.org/a"
    assert document.sources[1].link is None  # a document key is not a link
    # The report's own sources section gives way to the typed list.
    assert "## Sources" not in document.body
    assert "Alpha guide: https://alpha.example.org/a" not in document.body


def test_markdown_is_paragraphs_and_one_list_item_per_source(document: ExportDocument) -> None:
    from markdown_it import MarkdownIt

    text = render(document, "md").decode("utf-8")
    tokens = MarkdownIt("commonmark").parse(text)
    paragraphs = [
        t.content for i, t in enumerate(tokens) if t.type == "inline" and tokens[i - 1].level == 0
    ]
    # Two report lines that Markdown would have joined stand as two paragraphs.
    assert "Caches keep recent data close to the CPU. [1]" in paragraphs
    assert "Cache lines are 64 bytes on most processors. [2]" in paragraphs
    items = [t.content for t in tokens if t.type == "inline" and t.level == 3]
    sources = [item for item in items if item.startswith("[1] Alpha") or "cpu-notes.md" in item]
    assert sources[0] == "[1] Alpha guide to caches — <https://alpha.example.org/a>"
    assert sources[1] == "[2] CPU notes — local document — cpu-notes.md"
    headings = [t.content for i, t in enumerate(tokens) if tokens[i - 1].type == "heading_open"]
    assert headings[:2] == ["How caches work", "Locality"]
    assert "Sources" in headings and "Appendix: verification audit" in headings
    assert any("not\\_retrieved" in item or "not_retrieved" in item for item in items)
    assert any("**unsupported**" in item and "1802" in item for item in items)
    # A viewer that renders raw HTML still shows the report's markup as text.
    rendered = MarkdownIt("commonmark", {"html": True}).render(text)
    assert "<script>" not in rendered and '<img src="https://tracker' not in rendered
    assert "&lt;script&gt;" in rendered and 'href="javascript' not in rendered


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.source_items: list[str] = []
        self.headings: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("href", "src", "action", "srcset"):
                self.urls.append(value or "")
            if name == "id" and value and value.startswith("source-"):
                self.source_items.append(value)
        if tag in ("h1", "h2", "h3"):
            self._in = tag

    def handle_data(self, data: str) -> None:
        if self._in:
            self.headings.append(data)
            self._in = None


def test_html_is_self_contained_with_no_script_and_only_web_links(
    document: ExportDocument,
) -> None:
    html = render(document, "html").decode("utf-8")
    parsed = _Links()
    parsed.feed(html)
    assert "script" not in parsed.tags
    assert not {"img", "link", "iframe", "object", "embed"} & set(parsed.tags)
    assert parsed.urls and all(url.startswith(("http://", "https://")) for url in parsed.urls)
    assert "https://alpha.example.org/guide" in parsed.urls
    assert "<script>" not in html  # raw HTML in the report is shown as text, escaped
    assert parsed.source_items == ["source-1", "source-2"]
    assert "Sources" in parsed.headings and "Appendix: verification audit" in parsed.headings
    assert "How do caches &lt;b&gt;work&lt;/b&gt;?" in html  # the title, escaped
    assert "no source sentence supports it" in html


def _pdf_text_by_pypdf(data: bytes) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


def _assert_pdf_text(text: str) -> None:
    flat = " ".join(text.split())
    for expected in (
        "How caches work",
        "Locality",
        "close to the CPU. [1]",
        "Sources",
        "[1] Alpha guide to caches",
        "https://alpha.example.org/a",
        "cpu-notes.md",
        "Appendix: verification audit",
        "not_retrieved",
        "unsupported",
    ):
        assert expected in flat, expected


@pytest.fixture(scope="module")
def pdf(document: ExportDocument) -> bytes:
    return render(document, "pdf")


def test_pdf_text_holds_headings_citations_sources_and_audit(pdf: bytes) -> None:
    assert pdf.startswith(b"%PDF-")
    _assert_pdf_text(_pdf_text_by_pypdf(pdf))


def test_pdf_reads_and_renders_with_poppler(pdf: bytes, tmp_path: Path) -> None:
    if not (shutil.which("pdftotext") and shutil.which("pdftoppm")):
        pytest.skip("poppler-utils (pdftotext, pdftoppm) not installed; pypdf checks the text")
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    _assert_pdf_text(text)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", str(path), str(tmp_path / "page")],
        check=True,
        timeout=30,
    )
    (image,) = tmp_path.glob("page*.png")
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_docx_has_headings_sources_and_audit(document: ExportDocument) -> None:
    import docx

    word = docx.Document(io.BytesIO(render(document, "docx")))
    headings = [p.text for p in word.paragraphs if p.style.name.startswith("Heading")]
    assert headings[:2] == ["How caches work", "Locality"]
    assert "Sources" in headings and "Appendix: verification audit" in headings
    texts = [p.text for p in word.paragraphs]
    sources = texts.index("Sources")
    assert texts[sources + 1] == "[1] Alpha guide to caches — https://alpha.example.org/a"
    assert texts[sources + 2] == "[2] CPU notes — local document — cpu-notes.md"
    bullets = [p.text for p in word.paragraphs if p.style.name == "List Bullet"]
    assert "Temporal locality: reuse soon. [1]" in bullets
    assert "[3] https://gone.example.org/x — not_retrieved" in bullets
    cells = [cell.text for row in word.tables[0].rows for cell in row.cells]
    assert "unsupported" in cells
    assert any("1802" in cell and "no source sentence" in cell for cell in cells)


def test_export_writes_the_file_into_a_folder_by_default_name(tmp_path: Path) -> None:
    written = export_report(
        sample_report(), question=QUESTION, session_id=SESSION, fmt="md", path=tmp_path
    )
    assert written == (tmp_path / f"deepresearch-{SESSION}.md").resolve()
    assert "[1] Alpha guide to caches" in written.read_text(encoding="utf-8")


def test_pdf_without_a_unicode_font_falls_back_to_latin1_text(
    document: ExportDocument, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.export import pdf_file

    monkeypatch.setattr(pdf_file, "font_dir", lambda: None)
    text = " ".join(_pdf_text_by_pypdf(render(document, "pdf")).split())
    # The em dash has no Latin-1 form: it is written as a hyphen, the rest as it was.
    assert "[1] Alpha guide to caches - https://alpha.example.org/a" in text
    assert "Appendix: verification audit" in text
