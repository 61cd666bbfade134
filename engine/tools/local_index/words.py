"""Query words of the local index: free text turned into quoted FTS5 terms.

Terms are quoted, so quotes, operators, very long and non-Latin queries are all just words.
"""

from __future__ import annotations

import re

from engine.text.stopwords import STOPWORDS

MAX_QUERY_TERMS = 24
MAX_TERM_CHARS = 64

_TERM = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """The distinct words of a query, stopwords dropped unless nothing else is left."""
    terms: list[str] = []
    for term in _TERM.findall(text.lower()):
        term = term.strip("_")[:MAX_TERM_CHARS]
        if term and term not in terms:
            terms.append(term)
    meaningful = [term for term in terms if term not in STOPWORDS] or terms
    return meaningful[:MAX_QUERY_TERMS]


def quoted(words: list[str], operator: str) -> str:
    """An FTS5 MATCH expression: each word quoted, joined by `operator` (OR or AND)."""
    return f" {operator} ".join(f'"{word}"' for word in words)


def fts_query(text: str, operator: str = "OR") -> str | None:
    """A safe FTS5 MATCH expression (each term quoted, joined by OR or AND), or None."""
    terms = query_terms(text)
    if not terms:
        return None
    return quoted(terms, operator)
