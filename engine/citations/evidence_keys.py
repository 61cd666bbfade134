"""One claim from the same sources is one piece of evidence, however many units record it.

Researchers working at once often read the same page and write the same sentence down: a
small model given two tracks tends to research the whole question twice. Counted twice, such
a claim would let the quality gate pass on less evidence than its threshold says, and the
ledger would show it twice. So a unit announces only evidence not yet announced, a later wave
stores none the ledger already holds, and whatever reads the ledger (the gate, the progress
counts, the writer) reads each piece of evidence once. The same claim from other sources
stays: another source saying it is more evidence, not a repeat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.citations.evidence import EvidenceRecord


def evidence_key(claim: str, sources: Iterable[str]) -> str:
    """What makes two records the same evidence: the claim's words, case and spacing aside,
    and the set of sources it rests on."""
    words = " ".join(claim.split()).casefold().rstrip(" .")
    return "\n".join([words, *sorted(set(sources))])


def record_key(record: EvidenceRecord | Mapping[str, Any]) -> str:
    """`evidence_key` of a record, in either its model or its checkpointed dict form."""
    if isinstance(record, EvidenceRecord):
        return evidence_key(record.claim, record.source_urls)
    return evidence_key(str(record.get("claim", "")), record.get("source_urls") or [])


def unseen_records(records: Iterable[EvidenceRecord], seen: set[str]) -> list[EvidenceRecord]:
    """The records whose evidence is not in `seen`, in order; their keys join `seen`."""
    fresh: list[EvidenceRecord] = []
    for record in records:
        key = record_key(record)
        if key not in seen:
            seen.add(key)
            fresh.append(record)
    return fresh


def distinct_records(records: Iterable[EvidenceRecord]) -> list[EvidenceRecord]:
    """Each piece of evidence once, in order: the first record of it stands."""
    return unseen_records(records, set())
