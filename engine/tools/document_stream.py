"""Big text and Markdown files, chunked as they are read: memory stays flat at any file size.

Reading a 200 MB text file whole, decoding it, splitting it into paragraphs and then chunks
held several copies of it at once (2.27 GB peak). Here a file is read one bounded line at a
time, gathered into blocks of about `BLOCK_CHARS` that end on a paragraph break when one comes
soon enough, and each block is cut into chunks by the same splitter small files use, so a
chunk is the same passage either way. Only one block is in memory at a time.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from engine.tools.documents import _HEADING, Chunk, MarkdownReader, _pieces
from engine.tools.extract import one_paragraph

STREAMED_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
BLOCK_CHARS = 256_000
# A block with no paragraph break is cut here anyway (one endless paragraph, no newline at all).
MAX_BLOCK_CHARS = 4 * BLOCK_CHARS
MAX_LINE_CHARS = 64_000
SNIFF_BYTES = 1_000_000
TITLE_CHARS = 120


def text_encoding(path: Path) -> str:
    """UTF-8 when the file's first megabyte decodes as UTF-8, else cp1252 (as for small files)."""
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def _lines(path: Path, encoding: str) -> Iterator[str]:
    """The file's lines without their newline; a very long line comes in several pieces."""
    with path.open(encoding=encoding, errors="replace") as handle:
        while line := handle.readline(MAX_LINE_CHARS):
            yield line.rstrip("\r\n")


def stream_title(path: Path, markdown: bool, fallback: str) -> str:
    """The first heading (Markdown) or first non-empty line (text), read without loading all."""
    in_code = False
    for line in _lines(path, text_encoding(path)):
        if not markdown:
            if line.strip():
                return line.strip()[:TITLE_CHARS]
            continue
        if line.lstrip().startswith("```"):
            in_code = not in_code
        match = None if in_code else _HEADING.match(line)
        if match:
            return one_paragraph(match.group(2)) or fallback
    return fallback


def stream_chunks(path: Path, key: str, title: str, markdown: bool) -> Iterator[Chunk]:
    """The file's chunks in order, each under its nearest heading (Markdown) or the title."""
    heading = title
    block: list[str] = []
    size = 0
    reader = MarkdownReader()

    def flush() -> Iterator[Chunk]:
        nonlocal size
        text = "\n".join(block)
        block.clear()
        size = 0
        for piece in _pieces(text):
            yield Chunk(key=key, heading=heading, text=piece)

    for line in _lines(path, text_encoding(path)):
        if markdown:
            read = reader.line(line)
            if read is None:
                continue
            line = read
            match = None if reader.in_code else _HEADING.match(line)
            if match:
                yield from flush()
                heading = one_paragraph(match.group(2)) or title
                continue
        block.append(line)
        size += len(line) + 1
        if (size >= BLOCK_CHARS and not line.strip()) or size >= MAX_BLOCK_CHARS:
            yield from flush()
    yield from flush()
