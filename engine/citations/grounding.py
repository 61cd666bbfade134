"""Claims that cannot exist without sources, and reports that drop ungrounded claims."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


def _no_blank(values: list[str], what: str) -> list[str]:
    if any(not value.strip() for value in values):
        raise ValueError(f"a {what} is empty")
    return values


class ReportSource(BaseModel):
    """A source a report may cite: an id, and the URL or document key it stands for."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    locator: str = Field(min_length=1)
    title: str | None = None


class Claim(BaseModel):
    """One statement of a report, bound to at least one source id."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    source_ids: list[str] = Field(min_length=1)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)

    @field_validator("source_ids")
    @classmethod
    def _no_blank_ids(cls, ids: list[str]) -> list[str]:
        return _no_blank(ids, "source id")


class Report(BaseModel):
    """Claims plus the sources they may cite."""

    model_config = ConfigDict(frozen=True)

    summary: str = ""
    claims: list[Claim] = Field(default_factory=list)
    sources: list[ReportSource] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_source_ids(self) -> Report:
        ids = [source.id for source in self.sources]
        if len(ids) != len(set(ids)):
            raise ValueError("sources: source ids must be unique")
        return self

    def missing_source_ids(self) -> list[str]:
        """Source ids that claims cite but the report's sources do not hold, sorted."""
        available = {source.id for source in self.sources}
        return sorted({sid for claim in self.claims for sid in claim.source_ids} - available)

    def ungrounded_claims(self) -> list[Claim]:
        """Claims citing at least one source id the report does not hold."""
        available = {source.id for source in self.sources}
        return [c for c in self.claims if not set(c.source_ids) <= available]

    def validate_grounding(self) -> Report:
        """A copy without the claims that cite a source missing from `sources`."""
        available = {source.id for source in self.sources}
        grounded = [c for c in self.claims if set(c.source_ids) <= available]
        return self.model_copy(update={"claims": grounded})
