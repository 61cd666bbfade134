"""Audit trails of citation verification and report sanitization (JSON-serialisable)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

VerificationStatus = Literal["verified", "unverified"]
# no_inline_citations: sources are listed, but no sentence of the report cites one.
VerificationReason = Literal[
    "valid_citations",
    "no_valid_citations",
    "no_inline_citations",
    "no_sources",
    "no_supported_claims",
    "no_answering_claims",
]

# Removal reasons of the verifier. A duplicate is recorded as `duplicate_of_citation_<k>`,
# where k is the number that stays.
URL_NOT_IN_REGISTRY = "url_not_in_registry"
KEY_NOT_IN_REGISTRY = "citation_key_not_in_registry"
UNVERIFIABLE = "unverifiable"
DUPLICATE_PREFIX = "duplicate_of_citation_"
# An inline marker whose number no entry of the sources list defines (a hallucinated number).
NO_SUCH_ENTRY = "no_such_source_entry"
# `[Source: Title]` naming nothing in the sources list or the registry.
TITLE_NOT_IN_SOURCES = "title_not_in_sources"
# A citation that carried no number of its own (named, linked or a bare URL) is recorded
# under this number in the audit.
UNNUMBERED = 0

# Removal reasons of the sanitizer.
SanitizationReason = Literal[
    "shortened_url", "truncated_url", "ip_address_url", "unsafe_scheme", "not_a_listed_source"
]


def duplicate_reason(kept_number: int) -> str:
    return f"{DUPLICATE_PREFIX}{kept_number}"


class ValidCitation(BaseModel):
    """A citation that points at a retrieved source; `source` is the registry's URL or key."""

    model_config = ConfigDict(frozen=True)

    number: int
    source: str
    title: str | None = None


class RemovedCitation(BaseModel):
    """A citation the verifier removed; `source` is what the report cited (None if nothing).

    `number` is the writer's number, or `UNNUMBERED` (0) for a citation by name or URL.
    """

    model_config = ConfigDict(frozen=True)

    number: int
    source: str | None
    reason: str


class CitationVerification(BaseModel):
    """The verified report and its audit trail."""

    model_config = ConfigDict(frozen=True)

    verified_report: str
    valid_citations: list[ValidCitation] = Field(default_factory=list)
    removed_citations: list[RemovedCitation] = Field(default_factory=list)
    status: VerificationStatus
    reason: VerificationReason


class SanitizationRemoval(BaseModel):
    """A URL the sanitizer removed. `number` is its entry's number, None for body URLs."""

    model_config = ConfigDict(frozen=True)

    number: int | None
    url: str
    reason: SanitizationReason


class SanitizedReport(BaseModel):
    """The sanitized report, what was removed, and how the kept entries were renumbered."""

    model_config = ConfigDict(frozen=True)

    sanitized_report: str
    removed: list[SanitizationRemoval] = Field(default_factory=list)
    renumbered: dict[int, int] = Field(default_factory=dict)
    tool_markup_removed: bool = False


class CheckedReport(BaseModel):
    """A report after verification then sanitization: what the engine saves and shows."""

    model_config = ConfigDict(frozen=True)

    report: str
    verification: CitationVerification
    sanitization: SanitizedReport
