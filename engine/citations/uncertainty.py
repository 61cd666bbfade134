"""Pattern-based flags for claims that carry their own doubt.

Deterministic on purpose: the same sentence always gets the same flag, whichever model wrote
it. Stronger signals are checked first, so a sentence that both hedges and reports a
contradiction is labelled a contradiction.
"""

from __future__ import annotations

import re

_FLAGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "contradiction",
        re.compile(
            r"\b(?:contradict(?:s|ed|ing|ion|ions|ory)?|inconsistent with|at odds with"
            r"|refut(?:e|es|ed|ing))\b",
            re.IGNORECASE,
        ),
    ),
    (
        "conflicting evidence",
        re.compile(
            r"\b(?:conflicting|conflicts? with|mixed (?:results|evidence|findings))\b",
            re.IGNORECASE,
        ),
    ),
    (
        "disputed",
        re.compile(r"\b(?:disputed?|contested|controversial|debated|debatable)\b", re.IGNORECASE),
    ),
    (
        "unclear",
        re.compile(
            r"\b(?:unclear|uncertain(?:ty)?|unknown|not (?:yet )?(?:clear|known|established)"
            r"|remains to be seen|unconfirmed|unverified)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "unconfirmed report",
        re.compile(
            r"\b(?:reportedly|allegedly|rumou?red|purportedly"
            r"|according to (?:some|reports|rumou?rs)"
            r"|some (?:sources|reports) (?:say|claim|suggest))\b",
            re.IGNORECASE,
        ),
    ),
    (
        "hedged",
        # Lower-case `may` only: "May 2024" is a month, not a hedge.
        re.compile(
            r"\bmay\b|\b(?i:might|could|possibly|perhaps|likely|unlikely|appears? to"
            r"|seems? to|suggests?|preliminary|estimated?)\b"
        ),
    ),
)


def flag_uncertainty(sentence: str) -> str | None:
    """A short label when the sentence hedges, is disputed or reports a conflict, else None."""
    for label, pattern in _FLAGS:
        if pattern.search(sentence):
            return label
    return None
