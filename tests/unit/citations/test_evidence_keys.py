"""The ledger counts one record of a claim from the same sources."""

from __future__ import annotations

from engine.citations.evidence import EvidenceRecord
from engine.citations.evidence_keys import record_key, unseen_records


def record(claim: str, *sources: str, unit: str = "unit-1") -> EvidenceRecord:
    return EvidenceRecord(
        id=f"{unit}:{claim[:8]}", claim=claim, source_urls=list(sources), research_unit_id=unit
    )


def test_case_spacing_and_a_final_stop_do_not_make_a_claim_new():
    first = record("The default  maxsize is 128.", "doc:functools.html")
    again = record("the default maxsize is 128", "doc:functools.html", unit="unit-2")
    assert record_key(first) == record_key(again)
    assert record_key(first) == record_key(first.model_dump(mode="json"))


def test_the_same_claim_from_another_source_is_more_evidence_not_a_repeat():
    first = record("The default maxsize is 128.", "doc:functools.html")
    other = record("The default maxsize is 128.", "https://example.org/lru")
    assert record_key(first) != record_key(other)
    both = record("The default maxsize is 128.", "https://example.org/lru", "doc:functools.html")
    assert record_key(both) == record_key(
        record("The default maxsize is 128.", "doc:functools.html", "https://example.org/lru")
    )


def test_unseen_records_keeps_order_and_claims_what_it_keeps():
    seen = {record_key(record("Known claim.", "doc:a"))}
    records = [
        record("Known claim.", "doc:a"),
        record("New claim.", "doc:a"),
        record("new claim", "doc:a"),
        record("Another.", "doc:b"),
    ]
    kept = unseen_records(records, seen)
    assert [r.claim for r in kept] == ["New claim.", "Another."]
    assert unseen_records([record("Another.", "doc:b")], seen) == []


def test_the_ledger_is_read_each_piece_of_evidence_once_in_order():
    from engine.nodes.common import ledger_records

    raw = [
        record("One.", "doc:a").model_dump(mode="json"),
        record("Two.", "doc:a", unit="unit-2").model_dump(mode="json"),
        record("One.", "doc:a", unit="unit-2").model_dump(mode="json"),
        record("One.", "doc:b", unit="unit-2").model_dump(mode="json"),
    ]
    read = ledger_records(raw)
    assert [(r.claim, r.source_urls, r.research_unit_id) for r in read] == [
        ("One.", ["doc:a"], "unit-1"),
        ("Two.", ["doc:a"], "unit-2"),
        ("One.", ["doc:b"], "unit-2"),
    ]
