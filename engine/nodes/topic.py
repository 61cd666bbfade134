"""Follow-up questions: same topic (reuse the brief) or a new one (start over)?

Token-based and deterministic. With word overlap, only an explicit marker ("instead",
"switch", "different topic") counts as a shift; without overlap, it is a shift unless a
continuation marker ("also", "deeper", "more") says otherwise.
"""

from __future__ import annotations

import re

from engine.text.words import content_tokens

_WORD = re.compile(r"[a-z0-9]+")
SHIFT_MARKERS = ("instead", "switch", "different topic", "another topic", "new topic", "unrelated")
CONTINUATION_MARKERS = ("also", "deeper", "more", "expand", "elaborate", "further", "follow up")


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
