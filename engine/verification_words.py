"""A report's verification in plain words, for the audit command and the app's audit view.

The engine records identifiers (`verified`, `valid_citations`); a reader sees "verified:
4 citations kept" instead, and the reason only when it says more than the counts do.
"""

from __future__ import annotations

VERIFICATION_REASONS = {
    "valid_citations": "every citation points at a retrieved source",
    "no_sources": "no source was retrieved",
    "no_valid_citations": "no citation points at a retrieved source",
    "no_inline_citations": "sources listed, but no sentence cites one",
    "no_supported_claims": "no sentence is supported by the sources it cites",
    "no_answering_claims": "no sentence its sources support is about the question asked",
}


def verification_reason_words(reason: str) -> str:
    """The reason in words; an unknown identifier with its underscores as spaces."""
    return VERIFICATION_REASONS.get(reason, reason.replace("_", " "))


def verification_summary(status: str, reason: str, kept: int, removed: int) -> str:
    """E.g. "verified: 4 citations kept" or "unverified: 0 citations kept, 2 removed (no
    citation points at a retrieved source)"."""
    noun = "citation" if kept == 1 else "citations"
    text = f"{status or 'unknown'}: {kept} {noun} kept"
    if removed:
        text += f", {removed} removed"
    if reason and reason != "valid_citations":  # the counts already say all is well
        text += f" ({verification_reason_words(reason)})"
    return text
