"""What of a researcher's cited sentence is a finding, and when it is none.

A small model writes back what it was shown: a result's header line and locator
("mod_brotli - Apache HTTP Server Version 2.4 Document: mod_brotli.html [2]."), or a page's
table run into the sentence after it ("| Syntax: | BrotliCompressionMaxInputBlock value |
| Default: | (automatic) | The BrotliCompressionMaxInputBlock directive specifies …"). Every
word is in the source, so grounding keeps it, and the writer is handed a title or a table as
evidence. The table cells before a sentence go and the sentence stays; a sentence that says
nothing but the names and locators of its sources is no finding at all, and neither is one
that says nothing but the words of the task it was given ("The research as a whole covers
Apache httpd directives that control response compression and caching."), nor one that only
sends the reader to another part of the manual (engine.text.pointers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.text.pointers import without_pointers
from engine.text.sentences import PROSE_SENTENCE_BREAK_RE
from engine.text.words import content_words

# Cells of a table flattened into the text, up to the last bar before the sentence.
_TABLE_RUN = re.compile(r"^\s*\|.*\|\s*")
_LEADING_MARKS = re.compile(r"^(?:#{1,6}\s+|(?:\[…\]|…)\s*)+")
# The labels a search result's header lines carry ("Document: x.html", "URL: …").
_LOCATOR_LABELS = frozenset({"document", "url", "source", "title", "page"})
# What is left of a table row once its cells go must still be a sentence to be a finding.
MIN_SENTENCE_WORDS = 4
# A finding names something and says something of it ("Default: 30." has both).
MIN_CONTENT_WORDS = 2


def finding_text(claim: str, source_names: Iterable[str]) -> str:
    """`claim` as a finding: without table cells before its sentence; "" when nothing is left
    but table cells, or the titles and locators of its sources (`source_names`)."""
    # "## Note This option is only available for …": a heading's marks are not its words,
    # nor is the gap mark a fetched page's excerpts carry ("[…] The usual goal of …").
    text = _LEADING_MARKS.sub("", claim.strip())
    table = _TABLE_RUN.match(text)
    if table is not None:
        text = text[table.end() :].strip()
        if len(text.split()) < MIN_SENTENCE_WORDS:
            return ""
    named = {word for name in source_names for word in content_words(name)} | _LOCATOR_LABELS
    words = content_words(text)
    if words and words <= named:
        return ""
    # "3.": a list item's number or a lone value says nothing about anything.
    if len(words) < MIN_CONTENT_WORDS:
        return ""
    kept = [without_pointers(part) for part in PROSE_SENTENCE_BREAK_RE.split(text)]
    return " ".join(part for part in kept if part)


def restates_task(claim: str, task: str) -> bool:
    """Whether every content word of `claim` is a word of the `task` the researcher was given:
    its topic written back, not something it found."""
    words = content_words(claim)
    return bool(words) and words <= content_words(task)
