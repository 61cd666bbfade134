"""Text blocks the graph puts into prompts, each with its parser.

These are the contract between the graph's prompts and any model that must read them back
deterministically (the offline extractive model). Format and parse live side by side so they
cannot drift apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.citations.evidence import EvidenceRecord
from engine.schemas import ResearchPlan, ResearchTrack

PLAN_HEADER = "## Approved research plan"
LEDGER_HEADER = "## Evidence ledger"
# The writer's inputs for one section (or the summary): one JSON object after this heading,
# read by the offline model with json, never from the prompt's wording.
SECTION_INPUT_HEADING = "## Section input (JSON)"
_TRACK_RE = re.compile(r"^### Track (\d+): (.+)$")
_LEDGER_RE = re.compile(r"^- \[(?P<id>[^\]]+)\] (?P<claim>.+?) \(sources: (?P<urls>.+)\)$")


def format_plan(plan: ResearchPlan) -> str:
    """The plan as the supervisor and the writer read it."""
    lines = [PLAN_HEADER, f"Scope: {plan.scope}"]
    if plan.evidence_strategy:
        lines.append(f"Evidence strategy: {plan.evidence_strategy}")
    if plan.output_format:
        lines.append(f"Output format: {plan.output_format}")
    for number, track in enumerate(plan.tracks, start=1):
        lines.append(f"### Track {number}: {track.title}")
        lines.append(f"Section: {track.section}")
        lines.append("Queries: " + " | ".join(track.queries))
    return "\n".join(lines)


def parse_plan_tracks(text: str) -> list[ResearchTrack]:
    """Tracks found in a prompt written with `format_plan` (empty when there is none)."""
    tracks: list[ResearchTrack] = []
    title: str | None = None
    section = ""
    for line in text.splitlines():
        match = _TRACK_RE.match(line.strip())
        if match:
            title, section = match.group(2).strip(), ""
            continue
        if title is None:
            continue
        if line.startswith("Section: "):
            section = line.removeprefix("Section: ").strip()
        elif line.startswith("Queries: "):
            queries = [q.strip() for q in line.removeprefix("Queries: ").split(" | ") if q.strip()]
            tracks.append(ResearchTrack(title=title, section=section or title, queries=queries))
            title = None
    return tracks


@dataclass(frozen=True)
class LedgerLine:
    record_id: str
    claim: str
    sources: tuple[str, ...]


def format_ledger(records: list[EvidenceRecord]) -> str:
    """The evidence ledger as the writer reads it: one line per record with its sources."""
    lines = [LEDGER_HEADER]
    for record in records:
        claim = " ".join(record.claim.split())
        lines.append(f"- [{record.id}] {claim} (sources: {' ; '.join(record.source_urls)})")
    return "\n".join(lines)


def parse_ledger(text: str) -> list[LedgerLine]:
    """Ledger lines found in a prompt written with `format_ledger`."""
    found: list[LedgerLine] = []
    for line in text.splitlines():
        match = _LEDGER_RE.match(line.strip())
        if match:
            sources = tuple(s.strip() for s in match.group("urls").split(" ; ") if s.strip())
            found.append(LedgerLine(match.group("id"), match.group("claim"), sources))
    return found
