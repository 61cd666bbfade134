"""The writer role of the offline model: a report assembled from the evidence ledger.

Every sentence of the body is a ledger claim (itself a quote from a retrieved source), cited
with the ledger's own sources; headings are the plan's sections. No URL is ever produced that
is not in the ledger it was given.
"""

from __future__ import annotations

from engine.models.offline_conversation import Conversation
from engine.models.offline_extract import CitationNumbers
from engine.models.offline_reply import OfflineReply
from engine.models.offline_sources import parse_source_titles
from engine.models.offline_text import terms
from engine.prompt_blocks import LedgerLine, parse_ledger, parse_plan_tracks
from engine.schemas import ResearchTrack

SUMMARY_SENTENCES = 3
MAX_SENTENCES_PER_SECTION = 6


def _fit(track: ResearchTrack, claim: str) -> float:
    """How well a claim belongs to a track: shared terms, weighted toward the title."""
    claim_terms = terms(claim)
    if not claim_terms:
        return 0.0
    title_terms = terms(f"{track.title} {track.section}")
    query_terms = terms(" ".join(track.queries))
    return 2 * len(claim_terms & title_terms) + len(claim_terms & query_terms)


def assign(tracks: list[ResearchTrack], ledger: list[LedgerLine]) -> list[list[LedgerLine]]:
    """Ledger lines per track: each line to its best track; an empty track borrows its best."""
    buckets: list[list[LedgerLine]] = [[] for _ in tracks]
    for line in ledger:
        fits = [_fit(track, line.claim) for track in tracks]
        best = max(range(len(tracks)), key=lambda i: (fits[i], -i))
        buckets[best].append(line)
    for index, track in enumerate(tracks):
        if not buckets[index] and ledger:
            buckets[index].append(max(ledger, key=lambda line: _fit(track, line.claim)))
    return [bucket[:MAX_SENTENCES_PER_SECTION] for bucket in buckets]


def _cite(line: LedgerLine, numbers: CitationNumbers, titles: dict[str, str]) -> str:
    marks = "".join(f"[{numbers.number(s, titles.get(s, s))}]" for s in line.sources)
    return f"{line.claim} {marks}"


def write_report(conversation: Conversation) -> OfflineReply:
    """Title, summary of the strongest claims, a section per track, Sources."""
    prompt = conversation.prompt_text
    tracks = parse_plan_tracks(prompt)
    ledger = parse_ledger(prompt)
    titles = parse_source_titles(prompt)
    question = conversation.question()
    if question.startswith(("#", "-", "[")):
        # No question in the prompt, only blocks: fall back to the plan's scope line.
        scope = next((ln for ln in prompt.splitlines() if ln.startswith("Scope: ")), "")
        question = scope.removeprefix("Scope: ").removeprefix("In scope: ").split(" Out of")[0]
    title = " ".join(question.split())[:200] or "Research report"
    if not ledger:
        return OfflineReply(
            content=f"# {title}\n\nNo evidence was recorded, so there is nothing to report.",
            role="writer",
        )
    if not tracks:
        tracks = [ResearchTrack(title=title, section="Findings", queries=[title])]

    question_terms = terms(" ".join([question, *(t.title for t in tracks)]))
    strongest = sorted(
        ledger, key=lambda line: (-len(terms(line.claim) & question_terms), ledger.index(line))
    )[:SUMMARY_SENTENCES]

    numbers = CitationNumbers()
    lines = [f"# {title}", "", "## Summary"]
    lines += [_cite(line, numbers, titles) for line in strongest]
    for track, bucket in zip(tracks, assign(tracks, ledger), strict=True):
        lines += ["", f"## {track.section}"]
        lines += [_cite(line, numbers, titles) for line in bucket]
    lines += ["", "## Sources", *numbers.sources_lines()]
    return OfflineReply(content="\n".join(lines), role="writer")
