"""The offline model's section writer: a report section as claims with passage ids.

Its inputs arrive as data with the call (engine.model_task): the object the engine writes
the section's prompt from (engine.nodes.section_inputs), never read out of the prompt. A
section is its findings (each itself a quote from a retrieved passage, kept as quoted),
near-duplicates dropped, each citing the passages it came from; a summary is the first
sentence of each section with that sentence's sources.
"""

from __future__ import annotations

from typing import Any

from engine.models.offline.text import terms

MAX_SECTION_CLAIMS = 6
SUMMARY_CLAIMS = 3
NEAR_DUPLICATE = 0.8


def section_claims(payload: dict[str, Any]) -> dict[str, Any]:
    """`SectionDraft` arguments for a section input or a summary input."""
    if "sections" in payload:
        return {"claims": _summary(payload["sections"])}
    claims: list[dict[str, Any]] = []
    kept: list[set[str]] = []
    for finding in payload.get("findings") or []:
        text = str(finding.get("text") or "").strip()
        ids = [i for i in finding.get("passages") or [] if isinstance(i, int)]
        words = terms(text)
        if not text or not ids or any(_overlap(words, other) for other in kept):
            continue
        kept.append(words)
        claims.append({"text": text, "source_ids": ids})
        if len(claims) >= MAX_SECTION_CLAIMS:
            break
    return {"claims": claims}


def _summary(sections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    claims = []
    for section in sections:
        sentences = section.get("sentences") or []
        if sentences:
            first = sentences[0]
            claims.append({"text": first.get("text", ""), "source_ids": first.get("sources", [])})
        if len(claims) >= SUMMARY_CLAIMS:
            break
    return claims


def _overlap(a: set[str], b: set[str]) -> bool:
    if not a or not b:
        return False
    return len(a & b) / min(len(a), len(b)) >= NEAR_DUPLICATE
