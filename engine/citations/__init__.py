"""Citation verification, report sanitization and grounded evidence (pure, no network).

The public names are loaded on first use: `engine.events` imports the evidence model from
this package, and the app must not pay for the parsers before its first frame.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "EvidenceRecord": "evidence",
    "CitedSentence": "extract",
    "evidence_from_message": "extract",
    "extract_cited_sentences": "extract",
    "split_sentences": "extract",
    "Claim": "grounding",
    "Report": "grounding",
    "ReportSource": "grounding",
    "InlineMarker": "parse",
    "SourceEntry": "parse",
    "find_inline_markers": "parse",
    "parse_sources_section": "parse",
    "check_report": "pipeline",
    "RegisteredSource": "registry",
    "SourceRegistry": "registry",
    "merge_registry_dicts": "registry",
    "CheckedReport": "results",
    "CitationVerification": "results",
    "RemovedCitation": "results",
    "SanitizationRemoval": "results",
    "SanitizedReport": "results",
    "ValidCitation": "results",
    "sanitize_report": "sanitize",
    "unsafe_url_reason": "sanitize",
    "flag_uncertainty": "uncertainty",
    "normalize_url": "urls",
    "verify_citations": "verify",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine.citations' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.citations.{module}"), name)
    globals()[name] = value
    return value
