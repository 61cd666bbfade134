"""Exporting a finished report as Markdown, HTML, PDF or Word, with its sources and audit.

Every format is built from the typed stored report (`ReportReady`: the prose, the verified
citations, the claims and their verdicts). Each renderer imports its library when it runs,
so nothing here weighs on start-up (the command line's parser reads FORMATS).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.events import ReportReady
    from engine.export.document import ExportDocument

ExportFormat = Literal["md", "html", "pdf", "docx"]
FORMATS: tuple[ExportFormat, ...] = get_args(ExportFormat)
FORMAT_NAMES: dict[ExportFormat, str] = {
    "md": "Markdown",
    "html": "HTML (one self-contained file)",
    "pdf": "PDF",
    "docx": "Word (DOCX)",
}

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "ExportFormat",
    "default_export_dir",
    "default_export_path",
    "export_report",
    "render",
]


def _renderer(fmt: ExportFormat) -> Callable[[ExportDocument], bytes]:
    if fmt == "md":
        from engine.export.markdown_file import to_markdown

        return lambda document: to_markdown(document).encode("utf-8")
    if fmt == "html":
        from engine.export.html_file import to_html

        return lambda document: to_html(document).encode("utf-8")
    if fmt == "pdf":
        from engine.export.pdf_file import to_pdf

        return to_pdf
    from engine.export.docx_file import to_docx

    return to_docx


def render(document: ExportDocument, fmt: ExportFormat) -> bytes:
    """The file's bytes in the chosen format."""
    return _renderer(fmt)(document)


def default_export_dir(settings: Settings) -> Path:
    """EXPORT_DIR, else `exports` in the data directory."""
    if settings.export_dir is not None:
        return settings.export_dir.expanduser()
    return settings.data_dir / "exports"


def default_export_path(folder: Path, session_id: str, fmt: ExportFormat) -> Path:
    return folder / f"deepresearch-{session_id or 'report'}.{fmt}"


def export_report(
    report: ReportReady, *, question: str, session_id: str, fmt: ExportFormat, path: Path
) -> Path:
    """Write the report to `path` in `fmt` (a folder gets the default file name); the
    absolute path written. Raises OSError when it cannot be written."""
    from engine.export.document import build_document

    if path.is_dir():
        path = default_export_path(path, session_id, fmt)
    document = build_document(report, question=question, session_id=session_id)
    data = render(document, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path.resolve()
