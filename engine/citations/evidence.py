"""Grounded evidence: claims that cannot exist without the sources they came from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class EvidenceRecord(BaseModel):
    """One atomic claim bound to the URLs or document keys that support it."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    claim: str = Field(min_length=1)
    source_urls: list[str] = Field(min_length=1)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    contradiction_or_uncertainty: str | None = None
    research_unit_id: str = ""

    @field_validator("source_urls")
    @classmethod
    def _no_blank_sources(cls, urls: list[str]) -> list[str]:
        if any(not url.strip() for url in urls):
            raise ValueError("a source URL is empty")
        return urls
