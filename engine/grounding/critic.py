"""The critic: a deterministic review of a draft report before it is verified.

It finds two things a writer can fix: plan sections the draft leaves out although the
evidence ledger holds findings for them, and cited sentences their sources do not support
(scored as `ground_claims` scores them). No model is asked, so the review costs nothing, is
the same on every model, and cannot itself invent a problem. The writer revises from its
findings; the verifier and `ground_claims` still run on whatever the revision says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.citations.verify import verify_citations
from engine.events import ClaimSupport
from engine.grounding.enforce import ground_report
from engine.schemas import ResearchPlan
from engine.text.words import content_words

# A plan section is covered when this share of its heading's words appears in one heading,
# or of the track's title words anywhere in the draft.
HEADING_SHARE = 0.5
BODY_SHARE = 0.6
MAX_FINDINGS_LISTED = 12
_MAX_QUOTED = 300


@dataclass(frozen=True)
class UnsupportedSentence:
    text: str
    reason: str


@dataclass(frozen=True)
class Critique:
    """What the critic found in one draft, and how much of it stands."""

    missing_sections: list[str] = field(default_factory=list)
    unsupported: list[UnsupportedSentence] = field(default_factory=list)
    verified: bool = True  # at least one citation points at a retrieved source
    supported: int = 0  # cited sentences their sources support

    @property
    def clean(self) -> bool:
        return not self.missing_sections and not self.unsupported

    @property
    def problems(self) -> int:
        return len(self.missing_sections) + len(self.unsupported)

    def as_instructions(self) -> str:
        """The findings, worded for the writer's revision."""
        lines = ["## Reviewer findings on your draft"]
        for section in self.missing_sections[:MAX_FINDINGS_LISTED]:
            lines.append(
                f'- Missing section "{section}": the evidence ledger has findings for it; '
                "add the section, citing them."
            )
        for sentence in self.unsupported[:MAX_FINDINGS_LISTED]:
            lines.append(f'- Unsupported: "{sentence.text[:_MAX_QUOTED]}" ({sentence.reason}).')
        lines.append(
            "Revise the draft: add the missing sections; rewrite each unsupported sentence so it "
            "says only what its cited source says, or delete it. Keep every supported sentence "
            "and its citation numbers, and keep the Sources section."
        )
        return "\n".join(lines)


def _headings(draft: str) -> list[set[str]]:
    return [
        content_words(line.lstrip("#"))
        for line in draft.splitlines()
        if line.lstrip().startswith("#")
    ]


def _share(wanted: set[str], found: set[str]) -> float:
    return len(wanted & found) / len(wanted) if wanted else 1.0


def _missing_sections(
    draft: str, plan: ResearchPlan | None, records: Sequence[EvidenceRecord]
) -> list[str]:
    if plan is None:
        return []
    headings = _headings(draft)
    body = content_words(draft)
    claims = [content_words(record.claim) for record in records]
    missing = []
    for track in plan.tracks:
        section = content_words(track.section)
        if any(_share(section, heading) >= HEADING_SHARE for heading in headings):
            continue
        if _share(content_words(track.title), body) >= BODY_SHARE:
            continue
        topic = content_words(" ".join([track.title, track.section, *track.queries]))
        # A track the research never reached (capped runs) has nothing to write from.
        if any(len(topic & claim) >= 2 for claim in claims):
            missing.append(track.section)
    return missing


def _grounded(draft: str, registry: SourceRegistry) -> tuple[bool, list[ClaimSupport]]:
    # Judged as the reader will get it: verified first (numbering, styles, lost citations).
    verification = verify_citations(draft, registry, strict=True)
    grounded = ground_report(
        verification.verified_report,
        original=draft,
        sources={c.number: c.source for c in verification.valid_citations},
        registry=registry,
        mode="off",
        # The critic asks about what the draft cites; grounding also judges what it does not.
        uncited=False,
    )
    return verification.status == "verified", grounded.claims


def _unsupported(claims: Sequence[ClaimSupport]) -> list[UnsupportedSentence]:
    # A sentence repeated through the draft is one finding, not one per copy.
    found: dict[str, UnsupportedSentence] = {}
    for claim in claims:
        if claim.status == "unsupported":
            found.setdefault(claim.text, UnsupportedSentence(claim.text, claim.reason))
    return list(found.values())


def critique(
    draft: str,
    plan: ResearchPlan | None,
    records: Sequence[EvidenceRecord],
    registry: SourceRegistry,
) -> Critique:
    """Review `draft` against the approved plan, the ledger and what its sources said."""
    verified, claims = _grounded(draft, registry)
    return Critique(
        missing_sections=_missing_sections(draft, plan, records),
        unsupported=_unsupported(claims),
        verified=verified,
        supported=sum(1 for claim in claims if claim.status == "supported"),
    )
