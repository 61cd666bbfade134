"""A stored report with every part an export shows: prose on consecutive lines, a list, a
quote, links safe and unsafe, raw HTML, kept and removed citations, claims of each verdict."""

from __future__ import annotations

from engine.events import CitationAuditEntry, ClaimSupport, ReportReady

QUESTION = "How do caches <b>work</b>?"
SESSION = "20250101-120000-abc123"

BODY = """\
# How caches work

## Locality

Caches keep recent data close to the CPU. [1]
Cache lines are 64 bytes on most processors. [2]

- Temporal locality: reuse soon. [1]
- Spatial locality: neighbours next. [2]

> Read more at [the guide](https://alpha.example.org/guide) or [here](javascript:alert(1)).

<script>alert("x")</script> Inline <img src="https://tracker.example.com/p.png"> markup.

![a picture](https://images.example.com/cpu.png)

## Sources
[1] Alpha guide: https://alpha.example.org/a
[2] cpu-notes.md
"""


def sample_report() -> ReportReady:
    return ReportReady(
        report=BODY,
        mode="deep",
        verification_status="verified",
        verification_reason="valid_citations",
        kept_citations=[
            CitationAuditEntry(number=2, source="cpu-notes.md", title="CPU notes — local document"),
            CitationAuditEntry(
                number=1, source="https://alpha.example.org/a", title="Alpha guide to caches"
            ),
        ],
        removed_citations=[
            CitationAuditEntry(
                number=3, source="https://gone.example.org/x", reason="not_retrieved"
            )
        ],
        claims=[
            ClaimSupport(
                text="Caches keep recent data close to the CPU. [1]",
                numbers=[1],
                status="supported",
                score=0.91,
            ),
            ClaimSupport(
                text="Caches were invented in 1802. [1]",
                numbers=[1],
                status="unsupported",
                score=0.05,
                action="removed",
                reason="no source sentence supports it",
            ),
        ],
        grounding="strict",
    )
