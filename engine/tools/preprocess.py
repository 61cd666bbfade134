"""The deterministic, LLM-free search preprocessing pipeline.

normalize → dedupe → sort → truncate → format. Providers return different shapes (exa-py
`Result` objects, local index hits, plain dicts, bare strings); `normalize` turns them all into
`SearchResult`. Duplicates are removed by URL, or by a fingerprint of the passage when a
result has no URL (local documents, string results). The sort is stable and total: relevance
score first (provider order when there is none), then locator and title, so equal inputs always
give the same output. The formatted text is the contract the offline model parses back.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from engine.tools.extract import one_paragraph
from engine.tools.rerank import select_passages

MAX_PASSAGE_CHARS = 1200
_WORD = re.compile(r"\w+", re.UNICODE)
# A passage is picked sentence by sentence; a longer sentence is cut at words to this size.
PASSAGE_SENTENCE_CHARS = 400


@dataclass(frozen=True)
class SearchResult:
    """One search hit as the model sees it: a web URL or a local document key, never both."""

    title: str
    passage: str
    url: str | None = None
    document: str | None = None
    score: float | None = None
    rank: int = 0

    @property
    def locator(self) -> str:
        return self.url or self.document or ""


@dataclass(frozen=True)
class Preprocessed:
    results: list[SearchResult]
    results_before: int
    duplicates_removed: int


def best_passage(text: str, query: str, limit: int = MAX_PASSAGE_CHARS) -> str:
    """The stretch of sentences that best matches the query, at most `limit` characters.

    The same BM25 ranking as a long fetched page (engine/tools/rerank.py), at sentence
    granularity: the best sentence, then the ones after it (then before it) while they fit.
    One stretch, no elision marks: a passage stays one plain paragraph.
    """
    return select_passages(
        one_paragraph(text),
        query,
        limit,
        include_head=False,
        single_run=True,
        chunk_chars=1,
        max_chunk_chars=PASSAGE_SENTENCE_CHARS,
    )


def _field(item: Any, *names: str) -> Any:
    for name in names:
        value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
        if value:
            return value
    return None


def _normalize_one(item: Any, rank: int, query: str) -> SearchResult | None:
    if isinstance(item, SearchResult):
        return item
    if isinstance(item, str):
        text = item.strip()
        if not text:
            return None
        return SearchResult(title="", passage=best_passage(text, query), rank=rank)
    url = _field(item, "url")
    document = _field(item, "document_key", "document")
    highlights = _field(item, "highlights")
    if highlights and isinstance(highlights, list):
        raw_text = " ".join(str(h) for h in highlights)
    else:
        raw_text = str(_field(item, "passage", "text", "content", "snippet", "summary") or "")
    title = one_paragraph(str(_field(item, "title") or ""))
    passage = best_passage(raw_text, query) if raw_text else ""
    if not passage and not title:
        return None
    score = _field(item, "score")
    return SearchResult(
        title=title,
        passage=passage,
        url=str(url) if url else None,
        document=None if url else (str(document) if document else None),
        score=float(score) if isinstance(score, int | float) else None,
        rank=rank,
    )


def normalize(raw: Iterable[Any], query: str) -> list[SearchResult]:
    """Provider results of any supported shape, as `SearchResult`s in provider order."""
    results = []
    for rank, item in enumerate(raw):
        result = _normalize_one(item, rank, query)
        if result is not None:
            results.append(result)
    return results


def canonical_url(url: str) -> str:
    """The URL used for duplicate detection: no fragment, lowercase scheme and host."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def fingerprint(text: str) -> str:
    words = " ".join(w.lower() for w in _WORD.findall(text))
    return hashlib.sha1(words.encode("utf-8"), usedforsecurity=False).hexdigest()


def dedupe(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Keep the first result per URL (per passage fingerprint when there is no URL)."""
    seen: set[str] = set()
    kept = []
    for result in results:
        key = (
            "url:" + canonical_url(result.url)
            if result.url
            else "fp:" + fingerprint(f"{result.document or ''} {result.passage}")
        )
        if key not in seen:
            seen.add(key)
            kept.append(result)
    return kept


def stable_sort(results: Sequence[SearchResult]) -> list[SearchResult]:
    """Best first: score (higher is better; unscored results keep provider order after)."""
    return sorted(
        results,
        key=lambda r: (r.score is None, -(r.score or 0.0), r.rank, r.locator, r.title),
    )


def preprocess(raw: Iterable[Any], query: str, limit: int) -> Preprocessed:
    """normalize → dedupe → sort → truncate."""
    normalized = normalize(raw, query)
    unique = dedupe(normalized)
    ordered = stable_sort(unique)
    return Preprocessed(
        results=ordered[: max(limit, 0)],
        results_before=len(normalized),
        duplicates_removed=len(normalized) - len(unique),
    )


def _quoted(query: str) -> str:
    return " ".join(query.split())


def format_results(query: str, results: Sequence[SearchResult]) -> str:
    """The text the model reads (the offline model parses exactly this shape)."""
    if not results:
        return f'No results for "{_quoted(query)}".'
    blocks = [f'Search results for "{_quoted(query)}":']
    for number, result in enumerate(results, start=1):
        title = result.title or result.locator or "Untitled"
        where = f"URL: {result.url}" if result.url else f"Document: {result.document}"
        lines = [f"[{number}] {title}"]
        if result.url or result.document:
            lines.append(where)
        if result.passage:
            lines.append(result.passage)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
