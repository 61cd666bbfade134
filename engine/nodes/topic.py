"""Follow-up questions: same topic (reuse the brief) or a new one (start over)?

Token-based and deterministic. With word overlap, only an explicit marker ("instead",
"switch", "different topic") counts as a shift; without overlap, it is a shift unless a
continuation marker ("also", "deeper", "more") says otherwise.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "about",
        "into",
        "over",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "why",
        "when",
        "where",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "will",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "they",
        "them",
        "their",
        "there",
        "here",
        "as",
        "than",
        "then",
        "so",
        "if",
        "not",
        "no",
        "please",
        "tell",
        "explain",
        "give",
        "find",
        "show",
        "me",
        "more",
        "also",
    ]
)
SHIFT_MARKERS = ("instead", "switch", "different topic", "another topic", "new topic", "unrelated")
CONTINUATION_MARKERS = ("also", "deeper", "more", "expand", "elaborate", "further", "follow up")


def content_tokens(text: str) -> set[str]:
    """Lower-cased content words, with a crude plural fold so "caches" meets "cache"."""
    tokens = set()
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or len(word) < 3:
            continue
        tokens.add(word[:-1] if word.endswith("s") and len(word) > 4 else word)
    return tokens


def _has_marker(text: str, markers: tuple[str, ...]) -> bool:
    lowered = f" {' '.join(_WORD.findall(text.lower()))} "
    return any(f" {marker} " in lowered for marker in markers)


def topic_shifted(previous: str, latest: str) -> bool:
    """Whether `latest` starts a new topic rather than following up on `previous`."""
    if not previous.strip():
        return True
    overlap = content_tokens(previous) & content_tokens(latest)
    if overlap:
        return _has_marker(latest, SHIFT_MARKERS)
    return not _has_marker(latest, CONTINUATION_MARKERS)
