"""The quality gate counts a claim once, however many research units recorded it."""

from __future__ import annotations

from engine.citations.evidence import EvidenceRecord
from engine.gate import evaluate_gate


def record(number: int, claim: str, url: str) -> EvidenceRecord:
    return EvidenceRecord(id=f"u{number}-e1", claim=claim, source_urls=[url])


def test_the_same_claim_from_two_units_is_one_record() -> None:
    records = [
        record(1, "Queue.join() blocks until every item is processed.", "https://a.example/q"),
        record(2, "Queue.join()  blocks until every item is PROCESSED.", "https://b.example/q"),
        record(3, "Locks guard shared state.", "https://a.example/l"),
    ]
    gate = evaluate_gate(records, min_records=3, min_domains=2)
    assert not gate.passed and gate.record_count == 2
    assert gate.reason is not None and gate.reason.startswith("2 evidence records, need 3")
    more = [*records, record(4, "Events wake every waiting task.", "https://b.example/e")]
    assert evaluate_gate(more, min_records=3, min_domains=2).passed
