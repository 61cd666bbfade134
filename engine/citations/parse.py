"""Reading and rewriting the citation structure of a Markdown report (the public surface).

A report is a body with inline markers and one or more sources sections whose entries give
each number a URL or a document key. The work is split by responsibility:

- `scanning`: URLs, code spans, leaked tool markup, token merging;
- `markers`: numbered inline markers in every style (`[1]`, `[^1]`, `(Source 1)`, `¹` ...);
- `inline`: citations that name their source (`[Source: Title]`, links, bare URLs);
- `entries`: one sources-list entry; `sections`: finding the sections, splitting the report;
- `rewrite`: one-pass prose rewriting and reassembly.

This module re-exports their public names so callers keep importing from here.
"""

from __future__ import annotations

from engine.citations.entries import SourceEntry, parse_entry
from engine.citations.markers import (
    MARKER_PATTERN,
    InlineMarker,
    find_inline_markers,
    marker_numbers,
    render_marker,
)
from engine.citations.rewrite import (
    MarkerMap,
    RewriteNotes,
    UrlMap,
    collapse_links,
    render_report,
    rewrite_body,
    tidy_after_removal,
)
from engine.citations.scanning import find_tool_markup, find_urls, trim_url
from engine.citations.sections import ParsedReport, parse_report, parse_sources_section

__all__ = [
    "MARKER_PATTERN",
    "InlineMarker",
    "MarkerMap",
    "ParsedReport",
    "RewriteNotes",
    "SourceEntry",
    "UrlMap",
    "collapse_links",
    "find_inline_markers",
    "find_tool_markup",
    "find_urls",
    "marker_numbers",
    "parse_entry",
    "parse_report",
    "parse_sources_section",
    "render_marker",
    "render_report",
    "rewrite_body",
    "tidy_after_removal",
    "trim_url",
]
