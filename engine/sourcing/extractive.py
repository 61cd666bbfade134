"""Findings quoted from the results a researcher was shown, when it wrote none of its own.

A small model sometimes searches well and then never writes its findings (it loops on a
planning tool, or answers "Sources: [1], [2]"). The passages it was shown are still real,
retrieved text: the sentences of those passages that best match the unit's topic become its
findings, each cited to the result it came from, so the research is not lost. Nothing is
paraphrased or invented: every finding is a sentence a tool returned, verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.models.offline.text import terms
from engine.sourcing.source_numbers import SourceCatalog
from engine.text.pointers import without_pointers
from engine.text.sentences import PROSE_SENTENCE_BREAK
from engine.tools.rerank import score_chunks

# A sentence ends at its stop; a passage flattened from a page also runs its list items
# (" - Input - Store the byte count…") and table cells (" | ") together, each a unit of its own.
# A passage flattened from a list or a table also breaks at its dashes and bars.
_SENTENCE_END = re.compile(rf"{PROSE_SENTENCE_BREAK}|\s+[-|]\s+")
MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 400
# A quote must match the question at least half as well as the best one does: the third of
# three quotes should not be a sentence that shares one word with the question.
MIN_SHARE_OF_BEST = 0.5
# Two pages that state one thing in nearly the same words are one quote with both cited.
SAME_STATEMENT = 0.8


def sentences_of(passage: str) -> list[str]:
    """The whole sentences of a passage, of a length worth quoting, less those that only send
    the reader elsewhere ("See Section 25.1.")."""
    found = []
    for piece in _SENTENCE_END.split(" ".join(passage.split())):
        sentence = piece.strip()
        if not MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS:
            continue
        # Quoted word for word: a sentence that only points goes, one that also says
        # something stays whole (a cut sentence would no longer be the source's).
        if sentence[-1] in ".!?" and without_pointers(sentence):
            found.append(sentence)
    return found


def _same_statement(one: set[str], other: set[str]) -> bool:
    return bool(one and other) and len(one & other) >= SAME_STATEMENT * max(len(one), len(other))


def quoted_findings(
    topic: str, catalog: SourceCatalog, max_findings: int, *, besides: Sequence[str] = ()
) -> str:
    """Up to `max_findings` passage sentences that best match `topic`, each cited `[n]`.

    At most two sentences come from one result, so several sources are heard; a sentence
    another result states in nearly the same words is quoted once, citing both; one that
    states nearly what a finding of `besides` states already is not quoted.
    """
    stated = [terms(finding) for finding in besides]
    candidates = [
        (number, sentence)
        for number, passage in catalog.passages.items()
        for sentence in sentences_of(passage)
    ]
    if not candidates or max_findings <= 0:
        return ""
    scores = score_chunks([sentence for _, sentence in candidates], topic)
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    floor = MIN_SHARE_OF_BEST * scores[ranked[0]]
    chosen: list[tuple[int, list[int], set[str]]] = []  # candidate, numbers cited, its terms
    per_source: dict[int, int] = {}
    for index in ranked:
        number, sentence = candidates[index]
        if scores[index] <= 0 or scores[index] < floor:
            break
        said = terms(sentence)
        if any(_same_statement(said, finding) for finding in stated):
            continue
        again = next((quote for quote in chosen if _same_statement(quote[2], said)), None)
        if again is not None:
            if number not in again[1]:
                again[1].append(number)
            continue
        if per_source.get(number, 0) >= 2 or len(chosen) >= max_findings:
            continue
        per_source[number] = per_source.get(number, 0) + 1
        chosen.append((index, [number], said))
    lines = []
    for index, numbers, _said in sorted(chosen):
        sentence = candidates[index][1]
        cited = ", ".join(str(number) for number in sorted(numbers))
        lines.append(f"- {sentence[:-1]} [{cited}]{sentence[-1]}")
    return "\n".join(lines)
