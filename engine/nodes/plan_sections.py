"""Report sections named after what their tracks research.

A small model names sections by a report's framing ("Introduction", "Methodology",
"Results") rather than by their tracks' parts of the subject: seen on the bundled 1.5B for
pino, where the tracks were transports, redaction and their implementation. A section that
shares no word with its track's title, its queries or the question names none of them, and
is named after its track instead (its first query, a search phrase, else its title). A name
that shares one ("Compression" for mod_deflate's track searching "compress responses") stays,
unless it is a page's file name, address or manual page ("mod_deflate.html", seen on the
1.5B for httpd; "git-reflog(1)", for Git). A section number is left out.
"""

from __future__ import annotations

import re

from engine.nodes.researcher_passages import names_a_source
from engine.schemas import ResearchPlan, ResearchTrack, with_distinct_sections
from engine.text.words import stemmed_words

# A section heading fits on a line of the report's outline.
NAME_CHARS = 80
# Ended by a dot, as outlines and manuals number: "3. ", "20.10. " (not "3.11 Changes").
_NUMBERING = re.compile(r"^\s*(?:\d+\.)+\s+")
# A manual page as a reference names it: `git-reflog(1)`, `crontab(5)`.
_MANUAL_PAGE = re.compile(r"[\w.+-]+\(\d\w*\)")


def _names_a_page(text: str) -> bool:
    return names_a_source(text) or bool(_MANUAL_PAGE.fullmatch(text))


def with_named_sections(plan: ResearchPlan, question: str) -> ResearchPlan:
    tracks = [_named(track, question) for track in plan.tracks]
    if tracks == list(plan.tracks):
        return plan
    raw = plan.model_dump(mode="json")
    raw["tracks"] = [track.model_dump(mode="json") for track in tracks]
    return ResearchPlan.model_validate(with_distinct_sections(raw))


def _named(track: ResearchTrack, question: str) -> ResearchTrack:
    named = _unnumbered(track)
    about = stemmed_words(" ".join([track.title, *track.queries, question]))
    # A file name, a web address or a manual page names a page, not a part of the subject.
    if stemmed_words(named.section) & about and not _names_a_page(named.section.strip()):
        return named
    # Named after what it searches, as the model copied it: "20.10. automatic vacuuming".
    section = _unnumbered(track.model_copy(update={"section": _name_of(track)})).section
    if section.split()[0].isalpha():  # a search phrase opens a heading; a code name keeps its case
        section = section[0].upper() + section[1:]
    return track.model_copy(update={"section": section})


def _unnumbered(track: ResearchTrack) -> ResearchTrack:
    # "3. Configuration Parameters" (an outline's), "20.10. Automatic Vacuuming" (a manual's):
    # the number places the part in another document, and the report numbers nothing.
    unnumbered = _NUMBERING.sub("", track.section)
    if len(unnumbered.strip()) >= 3 and unnumbered != track.section:
        return track.model_copy(update={"section": unnumbered})
    return track


def _name_of(track: ResearchTrack) -> str:
    for query in track.queries:
        phrase = " ".join(query.split())
        if len(phrase) >= 3 and len(phrase) <= NAME_CHARS and not _names_a_page(phrase):
            first = phrase.split()[0]
            # A code name keeps its case ("mod_deflate"); a search phrase opens a heading.
            return phrase[0].upper() + phrase[1:] if first.isalpha() else phrase
    title = " ".join(track.title.split())
    if len(title) <= NAME_CHARS:
        return title
    return title[:NAME_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"
