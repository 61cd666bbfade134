"""A drafted plan's queries as they will be searched.

The planner is shown search results and a small model copies their lines into its queries:
a result's locator line ("Document: mod_deflate.html"), or the name of the documentation
every result's title carries ("Apache HTTP Server Version 2.4"; seen on the bundled 1.5B for
httpd, in one track after another). Searched as words, the locator line finds pages that
mention "document" and "html", not the page it names; the collection's name matches every
page equally, so its results are whatever ranks first, and they fill a research unit's
passages with pages about something else. A locator line is its locator (read as the page
itself, engine.nodes.researcher_passages); a query naming only the collection goes, unless
it is all its track searches.
"""

from __future__ import annotations

import re

from engine.models.offline.sources import Source, parse_search_results
from engine.nodes.plan_framing import TITLE_TAIL, with_tracks
from engine.schemas import ResearchPlan, ResearchTrack
from engine.text.words import stemmed_words

_LOCATOR_LINE = re.compile(r"^\s*(?:Document|URL)\s*:\s*(\S+)\s*$", re.IGNORECASE)
# The collection's name ends the titles of most pages shown, of several pages at least.
MIN_PAGES_NAMED = 3


def with_searchable_queries(plan: ResearchPlan, search_results: str) -> ResearchPlan:
    """`plan` with each locator line as its locator and each query that names only the
    collection the results come from left out (a track keeps one query at least)."""
    pages = _distinct_pages(parse_search_results(search_results))
    return with_tracks(plan, [_searchable(track, pages) for track in plan.tracks])


def _searchable(track: ResearchTrack, pages: list[Source]) -> ResearchTrack:
    queries: list[str] = []
    for query in track.queries:
        line = _LOCATOR_LINE.match(query)
        searched = line.group(1) if line else query
        if searched not in queries and not names_the_collection(searched, pages):
            queries.append(searched)
    if not queries:
        queries = [track.queries[0]]
    if queries == list(track.queries):
        return track
    return track.model_copy(update={"queries": queries})


def names_the_collection(query: str, pages: list[Source]) -> bool:
    """Every word of `query` is in the tails of the titles of at least half the pages shown
    (and of `MIN_PAGES_NAMED` at least): it names what they all belong to, not a part of it.
    Only a title's tail counts: the pages a question finds share its subject's words in their
    own names ("Routine Vacuuming", "Automatic Vacuuming"), and "vacuum" is a part of it."""
    words = stemmed_words(query)
    if not words:
        return False
    named = sum(words <= stemmed_words(_tail(page.title)) for page in pages)
    return named >= MIN_PAGES_NAMED and named * 2 >= len(pages)


def _tail(title: str) -> str:
    found = TITLE_TAIL.search(title)
    return found.group(1) if found else ""


def _distinct_pages(sources: list[Source]) -> list[Source]:
    seen: set[str] = set()
    pages: list[Source] = []
    for source in sources:
        page = source.locator.split("#", 1)[0]
        if page not in seen:
            seen.add(page)
            pages.append(source)
    return pages
