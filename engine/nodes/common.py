"""Small helpers the nodes share."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.citations.evidence import EvidenceRecord
from engine.citations.evidence_keys import distinct_records
from engine.schemas import ResearchPlan


def today() -> str:
    return datetime.now().astimezone().strftime("%A %d %B %Y")


def ledger_records(raw: list[dict[str, Any]] | None) -> list[EvidenceRecord]:
    """Evidence records from their checkpointed dict form, each piece of evidence once.

    Units of one wave that record the same claim from the same sources are all stored, so
    the ledger does not depend on which finished first; everything that counts or cites the
    evidence reads it here, once."""
    return distinct_records(EvidenceRecord.model_validate(item) for item in raw or [])


def plan_of(raw: dict[str, Any] | None) -> ResearchPlan | None:
    return ResearchPlan.model_validate(raw) if raw else None
