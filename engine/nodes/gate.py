"""The deterministic quality gate the supervisor's `ResearchComplete` must pass.

The supervisor model does not decide when research is done: the ledger does. The gate needs
`min_evidence_records` records, as many of them with sources, and `min_source_domains`
distinct source domains. A local document counts as its own domain (its file name, without
the `, p.N` page), so a well-covered local corpus can pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from engine.citations.evidence import EvidenceRecord

_PAGE_SUFFIX = re.compile(r"\s*[,;]?\s*\(?\s*(?:pp?\.|pages?)\s*\d+.*$|#page=\d+$", re.IGNORECASE)


def source_domain(source: str) -> str:
    """The domain a source counts toward: a URL's host, or a document's file name."""
    text = source.strip()
    if "://" in text:
        host = (urlsplit(text).hostname or "").lower()
        return host.removeprefix("www.")
    name = _PAGE_SUFFIX.sub("", text).strip().strip("`'\"")
    return re.split(r"[/\\]", name)[-1].lower()


def source_domains(records: Iterable[EvidenceRecord]) -> list[str]:
    """Distinct domains of every record's sources, sorted for stable display."""
    found = {source_domain(url) for record in records for url in record.source_urls}
    found.discard("")
    return sorted(found)


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict and the figures it judged."""

    passed: bool
    reason: str | None
    record_count: int
    cited_record_count: int
    domains: list[str]

    @property
    def status(self) -> Literal["pass", "retry"]:
        return "pass" if self.passed else "retry"


def evaluate_gate(
    records: list[EvidenceRecord], *, min_records: int, min_domains: int
) -> GateResult:
    """Judge the ledger against the thresholds; the reason names every shortfall."""
    cited = [record for record in records if record.source_urls]
    domains = source_domains(cited)
    shortfalls: list[str] = []
    if len(records) < min_records:
        shortfalls.append(f"{_count(len(records), 'evidence record')}, need {min_records}")
    if len(cited) < min_records:
        shortfalls.append(f"{_count(len(cited), 'record')} with sources, need {min_records}")
    if len(domains) < min_domains:
        shortfalls.append(f"{_count(len(domains), 'distinct source domain')}, need {min_domains}")
    reason = "; ".join(shortfalls) if shortfalls else None
    return GateResult(not shortfalls, reason, len(records), len(cited), domains)


def _count(number: int, noun: str) -> str:
    """ "1 record", "0 records": the noun agreeing with its count."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
