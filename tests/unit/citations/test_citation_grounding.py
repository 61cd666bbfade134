"""Grounded evidence models: no claim without a source."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.citations.evidence import EvidenceRecord
from engine.citations.grounding import Claim, Report, ReportSource


@pytest.mark.parametrize(
    ("fields", "bad_field"),
    [
        ({"id": "", "claim": "c", "source_urls": ["https://a.org"]}, "id"),
        ({"id": "e1", "claim": "", "source_urls": ["https://a.org"]}, "claim"),
        ({"id": "e1", "claim": "c", "source_urls": []}, "source_urls"),
        ({"id": "e1", "claim": "c", "source_urls": ["  "]}, "source_urls"),
        ({"id": "e1", "claim": "c", "source_urls": ["u"], "confidence": 1.5}, "confidence"),
        ({"id": "e1", "claim": "c", "source_urls": ["u"], "confidence": -0.1}, "confidence"),
    ],
)
def test_invalid_evidence_names_the_field(fields: dict[str, object], bad_field: str) -> None:
    with pytest.raises(ValidationError) as error:
        EvidenceRecord.model_validate(fields)
    assert error.value.errors()[0]["loc"][0] == bad_field


@pytest.mark.parametrize(
    ("fields", "bad_field"),
    [
        ({"text": "c", "source_ids": []}, "source_ids"),
        ({"text": "c", "source_ids": [""]}, "source_ids"),
        ({"text": "", "source_ids": ["s1"]}, "text"),
        ({"text": "c", "source_ids": ["s1"], "confidence": 2}, "confidence"),
    ],
)
def test_a_claim_cannot_exist_without_sources(fields: dict[str, object], bad_field: str) -> None:
    with pytest.raises(ValidationError) as error:
        Claim.model_validate(fields)
    assert error.value.errors()[0]["loc"][0] == bad_field


def test_validate_grounding_drops_claims_citing_unknown_sources() -> None:
    report = Report(
        summary="s",
        sources=[ReportSource(id="s1", locator="https://a.org"), ReportSource(id="s2",
                                                                               locator="x.pdf")],
        claims=[
            Claim(text="grounded", source_ids=["s1"]),
            Claim(text="both known", source_ids=["s1", "s2"]),
            Claim(text="ghost", source_ids=["s1", "s9"]),
            Claim(text="all ghost", source_ids=["s7"]),
        ],
    )  # fmt: skip
    grounded = report.validate_grounding()
    assert [c.text for c in grounded.claims] == ["grounded", "both known"]
    assert [c.text for c in report.ungrounded_claims()] == ["ghost", "all ghost"]
    assert report.missing_source_ids() == ["s7", "s9"]
    assert grounded.missing_source_ids() == []
    assert len(report.claims) == 4  # the original is untouched


def test_report_source_ids_must_be_unique() -> None:
    with pytest.raises(ValidationError, match="sources"):
        Report(sources=[ReportSource(id="s1", locator="a"), ReportSource(id="s1", locator="b")])
