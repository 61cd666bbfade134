"""A second page heard: when a quick answer rests on one page, quote what another one adds.

A small model answers from the first result that says it and cites that one page, even
when the search showed other pages about the same subject. A reader checking a one-page
answer wants to know what else the search found, in the other page's own words. So when the
answer cites a single page, the sentence of another page's passage that best matches the
question is quoted after the answer, under a lead-in that says it is quoted, and cited to
that page. Only a sentence that names what the question is about qualifies (every code name
the question gives, or most of its content words): nothing is added when the other pages
are about something else. Nothing is paraphrased: the quote is retrieved text, verbatim.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.grounding.names import code_names, names_every
from engine.models.offline.text import content_words
from engine.sourcing.extractive import sentences_of
from engine.sourcing.source_numbers import (
    SourceCatalog,
    body_of,
    cited_numbers,
    listed_consistently,
    listing_with,
    page_of,
)
from engine.tools.rerank import score_chunks

# A lead-in (it ends with a colon), so grounding reads it as framing, not as a claim.
RELATED_LEAD_IN = "Another page the search found says, in its own words:"
# Of the question's content words, the share a quoted sentence must contain.
MIN_SHARED_WORDS = 0.6


def about_the_subject(question: str) -> Callable[[str], bool]:
    """Whether a sentence is about what the question asks: it names every code name the
    question gives, or, where it gives none, most of the question's content words."""
    names = code_names(question)
    if names:
        return lambda sentence: names_every(names, sentence)
    wanted = set(content_words(question))
    needed = MIN_SHARED_WORDS * len(wanted)
    return lambda sentence: bool(wanted) and len(wanted & set(content_words(sentence))) >= needed


def related_quote(answer: str, question: str, catalog: SourceCatalog) -> str:
    """`answer` with one quoted sentence of another page when it cites a single page."""
    body = body_of(answer)
    tail = answer[len(body) :]
    listed = listed_consistently(answer, catalog) if tail else {}
    if listed is None:
        return answer  # its own numbering: a number from the catalog would name another page
    cited = [number for number in cited_numbers(body) if number in catalog.entries]
    pages = {page_of(catalog.entries[number][1]) for number in cited}
    if len(pages) != 1 or not question.strip():
        return answer
    about = about_the_subject(question)
    candidates = [
        (number, sentence)
        for number, passage in sorted(catalog.passages.items())
        if page_of(catalog.entries[number][1]) not in pages
        for sentence in sentences_of(passage)
        if about(sentence)
    ]
    if not candidates:
        return answer
    scores = score_chunks([sentence for _, sentence in candidates], question)
    best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
    if scores[best] <= 0:
        return answer
    number, sentence = candidates[best]
    quote = f"{RELATED_LEAD_IN}\n\n> {sentence[:-1]} [{number}]{sentence[-1]}"
    return f"{body.rstrip()}\n\n{quote}\n\n{listing_with(tail, listed, [number], catalog)}"
