"""Document keys: how the local search tool names a passage of a file in the documents folder.

Keys look like `guide.pdf`, `guide.pdf, p.15`, `notes.md`, `asyncio-task.html`. Citations
match them by file name, case-insensitively, and leniently about page numbers: a writer that
cites `Guide.pdf p. 16` still points at the retrieved `guide.pdf, p.15`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Extensions of files the documents folder can hold. Deliberately a closed list so that a bare
# domain such as `example.com` is never mistaken for a document.
DOCUMENT_EXTENSIONS = frozenset(
    {
        "pdf", "md", "markdown", "txt", "text", "html", "htm", "xhtml", "rst", "csv", "tsv",
        "json", "jsonl", "xml", "docx", "doc", "odt", "rtf", "epub", "tex", "ipynb", "yaml",
        "yml", "log", "org", "adoc",
    }
)  # fmt: skip

_EXTENSIONS = "|".join(sorted(DOCUMENT_EXTENSIONS, key=len, reverse=True))

# A document extension after its dot. It must not run on into more word characters, so
# `notes.mdx` or `guide.pdfs` are not keys.
EXTENSION_PATTERN = rf"\.(?:{_EXTENSIONS})(?![\w\-])"
# A file name (optionally with a directory) ending in a document extension.
DOCUMENT_NAME_PATTERN = rf"[\w./\\\-]*[\w\-]{EXTENSION_PATTERN}"

# The page suffix in its common spellings: `, p.15`, ` p. 15`, `, pp. 15-16`, `, page 15`,
# `#page=15`, ` (p. 15)`, and German `, S. 15` (Seite).
PAGE_SUFFIX_PATTERN = (
    r"(?:\s*[,;]?\s*\(?\s*(?:pp?\.|pages?|pg\.?|S\.)\s*(?P<page>\d+)(?:\s*[-–]\s*\d+)?\s*\)?"
    r"|#page=(?P<anchor_page>\d+))"
)

DOCUMENT_KEY_PATTERN = rf"(?P<name>{DOCUMENT_NAME_PATTERN})(?:{PAGE_SUFFIX_PATTERN})?"

_KEY_RE = re.compile(rf"^\s*[`'\"]?{DOCUMENT_KEY_PATTERN}[`'\"]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class DocumentKey:
    """A parsed document key: the lower-cased file name and the page, if any."""

    file_name: str
    page: int | None


def parse_document_key(text: str) -> DocumentKey | None:
    """The file name and page of a document key, or None when `text` is not one."""
    match = _KEY_RE.match(text)
    if match is None:
        return None
    name = re.split(r"[/\\]", match.group("name"))[-1].lower()
    page_text = match.group("page") or match.group("anchor_page")
    return DocumentKey(name, int(page_text) if page_text else None)
