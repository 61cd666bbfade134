"""Citation verification, report sanitization and grounded evidence (pure, no network).

Everything here is standard library and pydantic only, so importing it stays cheap.
"""

from engine.citations.evidence import EvidenceRecord
from engine.citations.extract import (
    CitedSentence,
    evidence_from_message,
    extract_cited_sentences,
    split_sentences,
)
from engine.citations.grounding import Claim, Report, ReportSource
from engine.citations.parse import (
    InlineMarker,
    SourceEntry,
    find_inline_markers,
    parse_sources_section,
)
from engine.citations.pipeline import check_report
from engine.citations.registry import RegisteredSource, SourceRegistry, merge_registry_dicts
from engine.citations.results import (
    CheckedReport,
    CitationVerification,
    RemovedCitation,
    SanitizationRemoval,
    SanitizedReport,
    ValidCitation,
)
from engine.citations.sanitize import sanitize_report, unsafe_url_reason
from engine.citations.uncertainty import flag_uncertainty
from engine.citations.urls import normalize_url
from engine.citations.verify import verify_citations

__all__ = [
    "CheckedReport",
    "CitationVerification",
    "CitedSentence",
    "Claim",
    "EvidenceRecord",
    "InlineMarker",
    "RegisteredSource",
    "RemovedCitation",
    "Report",
    "ReportSource",
    "SanitizationRemoval",
    "SanitizedReport",
    "SourceEntry",
    "SourceRegistry",
    "ValidCitation",
    "check_report",
    "evidence_from_message",
    "extract_cited_sentences",
    "find_inline_markers",
    "flag_uncertainty",
    "merge_registry_dicts",
    "normalize_url",
    "parse_sources_section",
    "sanitize_report",
    "split_sentences",
    "unsafe_url_reason",
    "verify_citations",
]
