"""Turn one local file into searchable chunks: by heading for HTML/Markdown, by page for PDF.

Each chunk carries the document key citations use: the file's path relative to the indexed
folder (`asyncio-task.html`), or for a PDF the path and page (`guide.pdf, p.3`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.terminal_text import one_line as terminal_line
from engine.text.sentences import SENTENCE_BREAK_RE
from engine.tools.document_names import citation_key
from engine.tools.extract import (
    ExtractionError,
    decode_body,
    extract_html,
    one_paragraph,
    pdf_pages,
    pdf_title,
)

SUPPORTED_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf"})
CHUNK_CHARS = 1000  # a chunk is one search passage: at most ~1200 chars after formatting
MIN_CHUNK_CHARS = 24
_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_SENTENCE_END = SENTENCE_BREAK_RE


@dataclass(frozen=True)
class Chunk:
    key: str
    heading: str
    text: str


@dataclass(frozen=True)
class ParsedDocument:
    title: str
    chunks: list[Chunk]


def pdf_page_key(rel_path: str, page_number: int) -> str:
    """The document key of one PDF page (1-based), e.g. `guide.pdf, p.3`."""
    return f"{rel_path}, p.{page_number}"


def _pieces(text: str, limit: int = CHUNK_CHARS) -> list[str]:
    """Split text into pieces of at most `limit` chars at paragraph, then sentence, boundaries."""
    pieces: list[str] = []
    current = ""
    units: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = one_paragraph(paragraph)
        if not paragraph:
            continue
        if len(paragraph) <= limit:
            units.append(paragraph)
        else:
            units.extend(s for s in _SENTENCE_END.split(paragraph) if s)
    for unit in units:
        while len(unit) > limit:  # a single huge sentence: hard split
            if current:
                pieces.append(current)
                current = ""
            pieces.append(unit[:limit])
            unit = unit[limit:]
        if current and len(current) + 1 + len(unit) > limit:
            pieces.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    if current:
        pieces.append(current)
    return [piece for piece in pieces if len(piece) >= MIN_CHUNK_CHARS]


# A heading is a name; a "heading" that is a sentence is text the extractor marked as one.
MIN_SENTENCE_HEADING_WORDS = 6


def _reads_as_sentence(heading: str) -> bool:
    """Whether a heading line is a sentence: a note's title run into its text ("Note This
    option is only available for servers running PostgreSQL 13 and later.", "Tip If you
    specify columns, … (See examples below.)", from a manual's option lists) or a comment of
    an unfenced code example ("# Send thirty task requests to the worker."). Under it, a
    page's passages would be labelled with that sentence."""
    ended = heading.rstrip(")]\"'’”").endswith(".")  # "… (See examples below.)"
    return ended and len(heading.split()) >= MIN_SENTENCE_HEADING_WORDS


def split_by_headings(text: str, key: str, title: str) -> list[Chunk]:
    """Chunks of Markdown-ish text, each under the nearest heading above it."""
    chunks: list[Chunk] = []
    heading = title
    lines: list[str] = []

    def flush() -> None:
        body = "\n".join(lines)
        chunks.extend(Chunk(key=key, heading=heading, text=piece) for piece in _pieces(body))
        lines.clear()

    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        match = None if in_code else _HEADING.match(line)
        if match and not _reads_as_sentence(match.group(2)):
            flush()
            heading = one_paragraph(match.group(2)) or title
        else:
            lines.append(line)
    flush()
    return chunks


def _read_text(path: Path) -> str:
    return decode_body(path.read_bytes(), None)


def parse_file(path: Path, rel_path: str) -> ParsedDocument:
    """Read and chunk one file; raises `ExtractionError` or `OSError` when it cannot.

    Chunks carry the document's citation key (its path, made plain when the name holds markup
    or controls); a title falls back to the key's file name and never holds a control.
    """
    key = citation_key(rel_path)
    name = key.rsplit("/", 1)[-1]
    parsed = _parse(path, key, name)
    # Titles and headings are shown on terminals and in Sources lines: one plain line each.
    title = terminal_line(parsed.title) or name
    chunks = [Chunk(c.key, terminal_line(c.heading) or title, c.text) for c in parsed.chunks]
    return ParsedDocument(title, chunks)


BINARY_SNIFF_BYTES = 8192
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm"})


def refuse_binary(path: Path) -> None:
    """Raise `ExtractionError` when a text-type file holds binary data (a NUL byte early on:
    no text encoding this app reads has one), so it is skipped rather than indexed as noise."""
    if path.suffix.lower() not in TEXT_SUFFIXES:
        return
    with path.open("rb") as handle:
        if b"\x00" in handle.read(BINARY_SNIFF_BYTES):
            raise ExtractionError("binary file, not text")


def without_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """One Markdown line without its HTML comments; whether a comment is still open after it."""
    kept: list[str] = []
    rest = line
    while rest:
        if in_comment:
            end = rest.find("-->")
            if end < 0:
                return "".join(kept), True
            rest, in_comment = rest[end + 3 :], False
            continue
        start = rest.find("<!--")
        if start < 0:
            kept.append(rest)
            break
        if ("".join(kept) + rest[:start]).count("`") % 2:
            # Inside inline code ("comments start with `<!--`"): text, not a comment.
            kept.append(rest[: start + 4])
            rest = rest[start + 4 :]
            continue
        kept.append(rest[:start])
        rest, in_comment = rest[start + 4 :], True
    return "".join(kept), in_comment


def markdown_without_comments(text: str) -> str:
    """Markdown without HTML comments outside code blocks, as `stream_chunks` reads it.

    Documentation carries build metadata in comments (`<!-- YAML added: v0.1.16 -->`): never
    shown when rendered, so never a passage either.
    """
    reader = MarkdownReader()
    kept = (reader.line(line) for line in text.split("\n"))
    return "\n".join(line for line in kept if line is not None)


class MarkdownReader:
    """Reads Markdown a line at a time, tracking code fences and open comments."""

    def __init__(self) -> None:
        self.in_code = False
        self.in_comment = False

    def line(self, line: str) -> str | None:
        """The line without comments; None for a line that was only a comment."""
        if line.lstrip().startswith("```") and not self.in_comment:
            self.in_code = not self.in_code
        if self.in_code:
            return line
        had_text = bool(line.strip())
        line, self.in_comment = without_comments(line, self.in_comment)
        # A comment line is not a paragraph break.
        return None if had_text and not line.strip() else line


def _parse(path: Path, key: str, name: str) -> ParsedDocument:
    suffix = path.suffix.lower()
    refuse_binary(path)
    if suffix == ".pdf":
        data = path.read_bytes()
        title = pdf_title(data) or name
        chunks: list[Chunk] = []
        for number, page in enumerate(pdf_pages(data), start=1):
            page_key = pdf_page_key(key, number)
            chunks.extend(
                Chunk(key=page_key, heading=f"page {number}", text=p) for p in _pieces(page)
            )
        return ParsedDocument(title=title, chunks=chunks)
    if suffix in (".html", ".htm"):
        extracted = extract_html(_read_text(path))
        title = extracted.title or name
        return ParsedDocument(title, split_by_headings(extracted.text, key, title))
    if suffix in (".md", ".markdown"):
        text = markdown_without_comments(_read_text(path))
        first = next((m for m in map(_HEADING.match, text.splitlines()) if m), None)
        title = one_paragraph(first.group(2)) if first else name
        return ParsedDocument(title, split_by_headings(text, key, title))
    if suffix == ".txt":
        text = _read_text(path)
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), "")
        title = first_line[:120] or name
        return ParsedDocument(title, [Chunk(key, title, p) for p in _pieces(text)])
    raise ExtractionError(f"unsupported file type {suffix}")
