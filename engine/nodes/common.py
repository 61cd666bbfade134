"""Small helpers the nodes share."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.citations.evidence import EvidenceRecord
from engine.schemas import ResearchPlan


def today() -> str:
    return datetime.now().astimezone().strftime("%A %d %B %Y")


def ledger_records(raw: list[dict[str, Any]] | None) -> list[EvidenceRecord]:
    """Evidence records from their checkpointed dict form."""
    return [EvidenceRecord.model_validate(item) for item in raw or []]


def plan_of(raw: dict[str, Any] | None) -> ResearchPlan | None:
    return ResearchPlan.model_validate(raw) if raw else None
