"""The post-processing every final report goes through: verify, then sanitize."""

from __future__ import annotations

from engine.citations.registry import SourceRegistry
from engine.citations.results import CheckedReport
from engine.citations.sanitize import sanitize_report
from engine.citations.verify import verify_and_parse


def check_report(report: str, registry: SourceRegistry, *, strict: bool = False) -> CheckedReport:
    """Verify citations against the registry, then sanitize and number them 1..k.

    Verification runs first so its audit trail uses the writer's numbers; sanitization then
    removes unsafe URLs and closes up the numbering of what is left. The report is parsed
    once: the verifier knows the structure of what it wrote and hands it to the sanitizer.
    `strict` is `verify_citations`'s.
    """
    verification, parsed = verify_and_parse(report, registry, strict=strict)
    sanitization = sanitize_report(verification.verified_report, parsed=parsed)
    return CheckedReport(
        report=sanitization.sanitized_report,
        verification=verification,
        sanitization=sanitization,
    )
