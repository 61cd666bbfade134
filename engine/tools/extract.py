"""Text extraction shared by the fetcher and the local index: HTML, plain text, Markdown, PDF.

Everything here is synchronous and CPU-bound; async callers run it with `asyncio.to_thread`.
HTML goes through trafilatura (Markdown output, so headings survive for chunking), falling
back to trafilatura's baseline extractor when the main one finds nothing.
"""

from __future__ import annotations

import html as html_lib
import io
import re
from dataclasses import dataclass

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_SPACES = re.compile(r"\s+")
# Sphinx permalink marks and Markdown escapes add noise to passages and index terms.
_NOISE = str.maketrans({"¶": None, "\u00a0": " "})
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")


@dataclass(frozen=True)
class ExtractedText:
    """A document's title and its text (Markdown-ish for HTML, with `#` headings)."""

    title: str
    text: str


class ExtractionError(ValueError):
    """The content could not be turned into text (corrupt PDF, empty page, ...)."""


def decode_body(body: bytes, charset: str | None) -> str:
    """Bytes to text: the declared charset, else a `<meta charset>`, else UTF-8, else cp1252."""
    candidates: list[str] = []
    if charset:
        candidates.append(charset.strip().strip("\"'"))
    meta = _META_CHARSET.search(body[:4096])
    if meta:
        candidates.append(meta.group(1).decode("ascii", "ignore"))
    for encoding in candidates:
        try:
            return body.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


def _clean(text: str) -> str:
    text = text.translate(_NOISE)
    return _MD_ESCAPE.sub(r"\1", text).strip()


def html_title(html: str) -> str:
    """The page title: `<title>`, else the first `<h1>`, else empty."""
    for pattern in (_TITLE, _H1):
        match = pattern.search(html)
        if match:
            title = _SPACES.sub(" ", html_lib.unescape(_TAG.sub("", match.group(1)))).strip()
            title = title.translate(_NOISE).strip()
            if title:
                return title
    return ""


def extract_html(html: str) -> ExtractedText:
    """Main text of an HTML page as Markdown-ish text; baseline extraction if that is empty."""
    import trafilatura

    title = html_title(html)
    text = trafilatura.extract(
        html,
        output_format="markdown",
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        include_images=False,
        favor_recall=True,
        # Skips the comparison with the fallback extractors: same text on these pages, a
        # third less CPU, which is most of the cost of indexing a folder.
        fast=True,
    )
    if not text or not text.strip():
        _tree, text, _length = trafilatura.baseline(html)
    text = _clean(text or "")
    if not text:
        raise ExtractionError("no text found in the page")
    return ExtractedText(title=title, text=text)


def pdf_pages(data: bytes) -> list[str]:
    """The text of each page of a PDF (empty string for a page without text)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        return [(page.extract_text() or "").strip() for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise ExtractionError("unreadable PDF") from exc


def pdf_title(data: bytes) -> str:
    from pypdf import PdfReader

    try:
        meta = PdfReader(io.BytesIO(data)).metadata
    except Exception:
        return ""
    title = meta.title if meta is not None else None
    return str(title).strip() if title else ""


def extract_content(body: bytes, media_type: str, charset: str | None) -> ExtractedText:
    """Extract text from a fetched body of an accepted media type."""
    if media_type == "application/pdf":
        pages = pdf_pages(body)
        text = "\n\n".join(page for page in pages if page)
        if not text:
            raise ExtractionError("no text found in the PDF")
        return ExtractedText(title=pdf_title(body), text=text)
    decoded = decode_body(body, charset)
    if media_type in ("text/html", "application/xhtml+xml"):
        return extract_html(decoded)
    text = decoded.strip()
    if not text:
        raise ExtractionError("empty document")
    first_line = text.splitlines()[0].lstrip("# ").strip()
    return ExtractedText(title=first_line[:200], text=text)


def one_paragraph(text: str) -> str:
    """Collapse whitespace and light Markdown so a passage reads as one paragraph."""
    text = text.replace("```", " ").replace("**", "").replace("`", "")
    text = re.sub(r"(?m)^\s*#{1,6}\s*", "", text)
    return _SPACES.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    """Cut text to at most `limit` characters, at a sentence or word boundary when possible."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    sentence_end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    if sentence_end >= limit * 0.6:
        return cut[: sentence_end + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit * 0.6 else cut).rstrip() + "…"
