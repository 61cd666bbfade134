"""Cite a second page where the quick answer's sentence is stated by one it was shown.

A small model answers from the first result that says it and cites that one number, so a
quick answer rests on one page even when the search showed two that say the same thing. A
reader checking the answer wants both. Each sentence that already cites a source is scored
against the passages the model was shown from other pages, with the scorer grounding uses
(numbers, code names and polarity checked outright); a passage that supports the sentence
adds its number. Only pages the search returned are ever cited, so the verifier keeps them,
and a passage that merely shares words is never enough.
"""

from __future__ import annotations

import re

from engine.grounding.names import code_names, names_every
from engine.grounding.score import score_claim
from engine.sourcing.source_numbers import (
    MARKER,
    SourceCatalog,
    body_of,
    cited_numbers,
    listed_consistently,
    listing_with,
    page_of,
)
from engine.text.markers import SENTENCE_WITH_MARKERS_RE

# Per sentence: a second and a third page are corroboration; more is clutter.
MAX_ADDED_PER_SENTENCE = 2
# Stricter than grounding's "supported": the sentence's own source already vouches for it;
# another page is added only when it says nearly all of it.
CORROBORATES_AT = 0.8


def _corroborating(sentence: str, catalog: SourceCatalog) -> list[int]:
    cited = [number for number in cited_numbers(sentence) if number in catalog.entries]
    if not cited:
        return []
    pages = {page_of(catalog.entries[number][1]) for number in cited}
    names = code_names(sentence)
    scored: list[tuple[float, int]] = []
    for number, passage in catalog.passages.items():
        title, locator = catalog.entries[number]
        if page_of(locator) in pages or not passage.strip():
            continue
        text = f"{title}. {passage}"
        if not names_every(names, text):
            continue
        verdict = score_claim(sentence, [text])
        if verdict.status == "supported" and verdict.score >= CORROBORATES_AT:
            scored.append((verdict.score, number))
    added: list[int] = []
    for _score, number in sorted(scored, key=lambda item: (-item[0], item[1])):
        page = page_of(catalog.entries[number][1])
        if page in pages:
            continue
        pages.add(page)
        added.append(number)
        if len(added) == MAX_ADDED_PER_SENTENCE:
            break
    return added


def _with_numbers(sentence: str, added: list[int]) -> str:
    """`sentence` with `added` joined to its last citation marker."""
    last = list(MARKER.finditer(sentence))[-1]
    numbers = ", ".join([last.group(1), *(str(number) for number in added)])
    return f"{sentence[: last.start()]}[{numbers}]{sentence[last.end() :]}"


def corroborate(answer: str, catalog: SourceCatalog) -> str:
    """`answer` with other pages that state its cited sentences cited beside them."""
    if len(catalog.passages) < 2:
        return answer
    body = body_of(answer)
    tail = answer[len(body) :]
    listed = listed_consistently(answer, catalog) if tail else {}
    if listed is None:
        return answer
    added_anywhere: list[int] = []
    lines = []
    in_code = False
    for line in body.split("\n"):
        if line.strip().startswith("```"):
            in_code = not in_code
        if in_code or line.lstrip().startswith(("#", "```", "|")):
            lines.append(line)
            continue

        def cite_more(match: re.Match[str]) -> str:
            sentence = match.group(0)
            added = _corroborating(sentence, catalog)
            added_anywhere.extend(n for n in added if n not in added_anywhere)
            return _with_numbers(sentence, added) if added else sentence

        lines.append(SENTENCE_WITH_MARKERS_RE.sub(cite_more, line))
    if not added_anywhere:
        return answer
    return "\n".join(lines) + listing_with(tail, listed, added_anywhere, catalog)
