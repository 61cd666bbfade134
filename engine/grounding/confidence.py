"""How much an evidence record can be trusted, from its evidence rather than from a model.

A record's confidence is how well the text its sources returned supports its claim (the
support scorer of engine/grounding/score.py), a little more when several sources say it,
and less when the claim itself hedges ("may", "reportedly"). Without any kept text to check
it against, a record stays at the neutral 0.5.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.citations.registry import SourceRegistry
from engine.grounding.score import score_claim

NEUTRAL = 0.5
_BASE = {"supported": 0.6, "weak": 0.35, "unsupported": 0.1}
_SPAN = {"supported": 0.3, "weak": 0.2, "unsupported": 0.0}
PER_EXTRA_SOURCE = 0.05
MAX_FROM_SOURCES = 0.1
HEDGED = 0.15


def evidence_confidence(
    claim: str, sources: Sequence[str], registry: SourceRegistry, *, hedged: bool = False
) -> float:
    """0.05–0.95: support of `claim` by its sources' text, with agreement and hedging."""
    owned = [
        (passage, source) for source in sources for passage in registry.related_passages(source)
    ]
    if not owned:
        return NEUTRAL
    scored = score_claim(claim, [passage for passage, _ in owned], [source for _, source in owned])
    value = _BASE[scored.status] + _SPAN[scored.status] * scored.score
    if scored.status != "unsupported":
        value += min(MAX_FROM_SOURCES, PER_EXTRA_SOURCE * (len(sources) - 1))
    if hedged:
        value -= HEDGED
    return round(min(0.95, max(0.05, value)), 2)
