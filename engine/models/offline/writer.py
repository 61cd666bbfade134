"""The writer role of the offline model: a report assembled from the evidence ledger.

Every sentence of the body is a ledger claim (itself a quote from a retrieved source), cited
with the ledger's own sources; headings are the plan's sections. No URL is ever produced that
is not in the ledger it was given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.models.offline.conversation import Conversation
from engine.models.offline.extract import CitationNumbers
from engine.models.offline.reply import OfflineReply
from engine.models.offline.sources import SourcePool, parse_source_titles
from engine.models.offline.text import terms
from engine.prompt_blocks import LedgerLine, parse_ledger, parse_plan_tracks
from engine.schemas import ResearchTrack

SUMMARY_SENTENCES = 3
MAX_SENTENCES_PER_SECTION = 6
# Claims sharing this share of their terms say the same thing.
NEAR_DUPLICATE = 0.8
HEADING_WEIGHT = 2.0
# A code name (a signature may hold spaces inside its parentheses) before a colon.
_ENTRY_LABEL_RE = re.compile(r"^(?:[^\s:()]+(?:\([^()]*\))?|[^\s:()]+\([^()]*\)):\s+(?=\S)")


def _track_terms(tracks: list[ResearchTrack]) -> list[set[str]]:
    """Each track's own terms: words of its title, section and queries that not every track
    shares (the question's subject appears in all of them and decides nothing)."""
    term_sets = [terms(f"{t.title} {t.section} {' '.join(t.queries)}") for t in tracks]
    return _own(term_sets)


def _section_terms(tracks: list[ResearchTrack]) -> list[set[str]]:
    """Each section heading's own terms: what the reader expects under it."""
    return _own([terms(track.section) for track in tracks])


def _own(term_sets: list[set[str]]) -> list[set[str]]:
    common = set.intersection(*term_sets) if len(term_sets) > 1 else set()
    return [term_set - common for term_set in term_sets]


def said(claim: str) -> str:
    """What a claim says, without the name of the entry it was quoted under
    (`asyncio.Lock: Not thread-safe.` says "Not thread-safe.")."""
    return _ENTRY_LABEL_RE.sub("", claim, count=1)


def _covered(claim_terms: set[str], heading: set[str]) -> float:
    return len(claim_terms & heading) / len(heading) if heading else 0.0


def distinct(ledger: list[LedgerLine]) -> list[LedgerLine]:
    """One line per claim: several research units often quote the same sentence, or the same
    words under another entry's name, or nearly the same sentence from another page."""
    kept: list[LedgerLine] = []
    kept_terms: list[set[str]] = []
    for line in ledger:
        claim_terms = terms(said(line.claim)) or terms(line.claim)
        if any(_near(claim_terms, other) for other in kept_terms):
            continue
        kept.append(line)
        kept_terms.append(claim_terms)
    return kept


def _near(a: set[str], b: set[str]) -> bool:
    return a == b or len(a & b) / len(a | b) >= NEAR_DUPLICATE


def assign(
    tracks: list[ResearchTrack], ledger: list[LedgerLine], reserved: Sequence[LedgerLine] = ()
) -> list[list[LedgerLine]]:
    """Ledger lines per track: each line to its best track; an empty track borrows its best.

    `reserved` lines (the summary's) are placed only where a section would otherwise be empty.
    """
    buckets: list[list[LedgerLine]] = [[] for _ in tracks]
    own_terms = _track_terms(tracks)
    heading_terms = _section_terms(tracks)
    for line in ledger:
        if line in reserved:
            continue
        claim_terms = terms(line.claim)
        # How much of a section's heading the claim says counts most: a claim goes where a
        # reader looks for it ("An asyncio lock …" under "Locks" before "Asyncio queues").
        fits = [
            len(claim_terms & track_terms) + HEADING_WEIGHT * _covered(claim_terms, heading)
            for track_terms, heading in zip(own_terms, heading_terms, strict=True)
        ]
        # Best fit wins; among equals the emptier section, so claims spread over the report.
        best = min(range(len(tracks)), key=lambda i: (-fits[i], len(buckets[i]), i))
        buckets[best].append(line)
    placed = [line for bucket in buckets for line in bucket[:MAX_SENTENCES_PER_SECTION]]
    for index, track_terms in enumerate(own_terms):
        # An empty section borrows a claim no other section shows (the summary's, at worst):
        # the same claim twice in the body is a repeat, not a finding.
        spare = [ln for ln in ledger if ln not in placed and ln not in reserved]
        spare = spare or [ln for ln in reserved if ln not in placed]
        if not buckets[index] and spare:
            borrowed = max(spare, key=lambda ln: len(terms(ln.claim) & track_terms))
            buckets[index].append(borrowed)
            placed.append(borrowed)
    return [bucket[:MAX_SENTENCES_PER_SECTION] for bucket in buckets]


def source_titles(prompt: str) -> dict[str, str]:
    """Titles of sources named in the prompt: notes' Sources lists, raw search and fetch output."""
    titles: dict[str, str] = {}
    pool = SourcePool()
    for block in prompt.split("\n\n"):
        if block.startswith("Fetched:"):
            pool.add_tool_output("fetch_url", block + "\n\n")
    pool.add_tool_output("search_web", prompt)
    for source in pool.sources:
        if source.title and source.title != source.locator:
            titles.setdefault(source.locator, source.title)
    for locator, title in parse_source_titles(prompt).items():
        titles.setdefault(locator, title)
    return titles


def _cite(line: LedgerLine, numbers: CitationNumbers, titles: dict[str, str]) -> str:
    marks = "".join(f"[{numbers.number(s, titles.get(s, s))}]" for s in line.sources)
    return f"{line.claim} {marks}"


def write_report(conversation: Conversation) -> OfflineReply:
    """Title, summary of the strongest claims, a section per track, Sources."""
    prompt = conversation.prompt_text
    tracks = parse_plan_tracks(prompt)
    ledger = distinct(parse_ledger(prompt))
    titles = source_titles(prompt)
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
    # What a claim says decides the summary, not the name of the entry it is under.
    strongest = sorted(
        ledger,
        key=lambda line: (-len(terms(said(line.claim)) & question_terms), ledger.index(line)),
    )[:SUMMARY_SENTENCES]

    numbers = CitationNumbers()
    lines = [f"# {title}", "", "## Summary"]
    lines += [_cite(line, numbers, titles) for line in strongest]
    for track, bucket in zip(tracks, assign(tracks, ledger, strongest), strict=True):
        lines += ["", f"## {track.section}"]
        lines += [_cite(line, numbers, titles) for line in bucket]
    lines += ["", "## Sources", *numbers.sources_lines()]
    return OfflineReply(content="\n".join(lines), role="writer")
