"""Tracks that divide the report's form instead of its subject, given the pages found.

A small model asked for a research plan often returns a report's outline: "Introduction",
"Methodology", "Results", "Conclusion", each searching the question again (seen on the
bundled 1.5B for PostgreSQL's autovacuum, twice). Researched, such tracks are the same topic
several times over, under headings that say nothing. A track is framing when its title shares
no word with the question or with its own queries: it names no part of what is searched. The
planner was shown what the documentation holds (its search results); each framing track gives
way to one of those pages not yet a track of the plan, in the order the searches ranked them,
researched by reading the page itself (its locator is the track's first query). A framing
track with no page left goes ("Conclusion": the report's summary is written anyway), unless
the plan needs it to keep its minimum of tracks; then it is named after what it searches
(engine.nodes.plan_sections).
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from engine.models.offline.sources import Source, parse_search_results
from engine.schemas import MIN_TRACKS, ResearchPlan, ResearchTrack
from engine.text.words import stemmed_words

# "25.1. Routine Vacuuming": the page's number in its manual is not part of its subject.
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+\.)+\d*\s+")
# "mod_deflate - Apache HTTP Server Version 2.4", "Pricing | Example Corp": the part after the
# first dash or bar (the group) names what the page belongs to.
TITLE_TAIL = re.compile(r"\s+[—|–-]\s+(.*)$")
TITLE_CHARS = 80
OUTLINE_TRACKS = 2
# A title of this many words found word for word in a result is a sentence copied from it.
COPIED_TITLE_WORDS = 6


def _words(text: str) -> frozenset[str]:
    """Content words, a code name also by its parts (`autovacuum_vacuum_threshold`)."""
    return stemmed_words(text) | stemmed_words(text.replace("_", " "))


def is_framing(track: ResearchTrack, question: str) -> bool:
    title = _words(track.title)
    return bool(title) and not title & _words(" ".join([question, *track.queries]))


def with_subject_tracks(plan: ResearchPlan, question: str, search_results: str) -> ResearchPlan:
    """`plan` with each framing track replaced by a page the search results found, each track
    titled with a sentence copied from a result named after that result's page, and a track
    that searches exactly what an earlier one searches left out."""
    plan = _pages_for_copied_titles(_without_repeats(plan), search_results)
    framing = [i for i, track in enumerate(plan.tracks) if is_framing(track, question)]
    # An outline has several parts; one track whose title its queries do not repeat is more
    # likely a subtopic named in its own words ("Transaction ID wraparound").
    if len(framing) < OUTLINE_TRACKS:
        return plan
    pages = iter(_unplanned_pages(plan, question, search_results))
    tracks: list[ResearchTrack | None] = list(plan.tracks)
    for index in framing:
        tracks[index] = next(pages, None)
    kept = [track for track in tracks if track is not None]
    if len(kept) < MIN_TRACKS:  # a framing track the plan needs to stay a plan stays
        kept = [track or plan.tracks[index] for index, track in enumerate(tracks)]
    return with_tracks(plan, kept)


def _without_repeats(plan: ResearchPlan) -> ResearchPlan:
    """The plan less each track whose queries are an earlier track's, in any order (the 1.5B's
    Git plan had its first track twice), or whose title is (its httpd plan had "mod_brotli"
    twice, the second section renamed "mod_brotli (5)" to be a section of its own):
    researched, it finds what the first found. The plan keeps its minimum of tracks."""
    seen: list[frozenset[str]] = []
    titles: set[str] = set()
    kept: list[ResearchTrack] = []
    spare = len(plan.tracks) - MIN_TRACKS
    for track in plan.tracks:
        searched = frozenset(_folded(query) for query in track.queries)
        title = _folded(track.title)
        if (searched in seen or title in titles) and spare > 0:
            spare -= 1
            continue
        seen.append(searched)
        titles.add(title)
        kept.append(track)
    return with_tracks(plan, kept)


def _pages_for_copied_titles(plan: ResearchPlan, search_results: str) -> ResearchPlan:
    """A track whose title is a sentence of a search result ("Note This option is only
    available for servers running PostgreSQL 13 and later.", the 1.5B's copy of vacuumdb's
    page) is titled after the page it copied: that is what it will research, and what the
    person reviewing the plan must see. One whose page another track already names goes, while
    the plan keeps its minimum of tracks."""
    sources = parse_search_results(search_results)
    tracks: list[ResearchTrack | None] = list(plan.tracks)
    names = {_folded(track.title) for track in plan.tracks} | {
        _folded(track.section) for track in plan.tracks
    }
    for index, track in enumerate(plan.tracks):
        source = _copied_from(track.title, sources)
        if source is None:
            continue
        name = _page_name(source)
        if len(name) < 3 or _folded(name) in names:
            tracks[index] = None
            continue
        names.add(_folded(name))
        tracks[index] = track.model_copy(update={"title": name, "section": name})
    # Below the plan's minimum, the first tracks that went come back as the model drew them.
    missing = MIN_TRACKS - sum(track is not None for track in tracks)
    for index, slot in enumerate(tracks):
        if slot is None and missing > 0:
            tracks[index], missing = plan.tracks[index], missing - 1
    return with_tracks(plan, [slot for slot in tracks if slot is not None])


def with_tracks(plan: ResearchPlan, tracks: list[ResearchTrack]) -> ResearchPlan:
    """`plan` with `tracks` instead of its own; the plan itself when they are its own, or when
    they do not make a valid plan (a page's name a section already holds)."""
    if tracks == list(plan.tracks):
        return plan
    raw = plan.model_dump(mode="json")
    raw["tracks"] = [track.model_dump(mode="json") for track in tracks]
    try:
        return ResearchPlan.model_validate(raw)
    except ValidationError:
        return plan


def _copied_from(title: str, sources: list[Source]) -> Source | None:
    """The result one of whose passages holds `title` word for word, when the title is a
    sentence: long, and ended by a stop (a short one, "Automatic Vacuuming", or a subheading,
    "25.1.5. Preventing Transaction ID Wraparound Failures", is a page's own name)."""
    folded = _folded(title)
    if len(folded.split()) < COPIED_TITLE_WORDS or folded[-1:] not in ".!?":
        return None
    folded = folded[:-1]
    return next(
        (s for s in sources if any(folded in _folded(passage) for passage in s.passages)), None
    )


def _unplanned_pages(plan: ResearchPlan, question: str, search_results: str) -> list[ResearchTrack]:
    asked = _words(question)
    taken = {_folded(track.title) for track in plan.tracks} | {
        _folded(track.section) for track in plan.tracks
    }
    queried = {query.strip() for track in plan.tracks for query in track.queries}
    found: list[ResearchTrack] = []
    for source in parse_search_results(search_results):
        name = _page_name(source)
        # A page whose title (with the manual's name) shares no word with the question is
        # not one of its parts.
        if len(name) < 3 or not _words(source.title) & asked:
            continue
        if _folded(name) in taken or source.locator in queried:
            continue
        try:
            page = ResearchTrack(title=name, section=name, queries=[source.locator, name])
        except ValidationError:  # a locator longer than a query may be
            continue
        taken.add(_folded(name))
        found.append(page)
    return found


def _page_name(source: Source) -> str:
    name = TITLE_TAIL.sub("", _SECTION_NUMBER.sub("", source.title)).strip()
    if len(name) > TITLE_CHARS:
        name = name[:TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:")
    return name


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
