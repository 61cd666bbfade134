"""Findings quoted from the results a researcher was shown, when it wrote none of its own.

A small model sometimes searches well and then never writes its findings (it loops on a
planning tool, or answers "Sources: [1], [2]"). The passages it was shown are still real,
retrieved text: the sentences of those passages that best match the unit's topic become its
findings, each cited to the result it came from, so the research is not lost. Nothing is
paraphrased or invented: every finding is a sentence a tool returned, verbatim (under the
name of the entry it describes, when the sentence itself does not say it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.models.offline.extract import bare_name
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.text import terms
from engine.sourcing.source_numbers import SourceCatalog
from engine.text.pointers import without_pointers
from engine.tools.rerank import score_chunks

# A page flattened from a table runs its cells together: each is a unit of its own.
_TABLE_CELL = re.compile(r"\s+\|\s+")
_PARENTHESES = re.compile(r"\([^()]*\)")
MIN_SENTENCE_CHARS = 40
# Under an entry's name a short sentence says enough ("autovacuum_analyze_threshold: The default
# is 50 tuples."): the name is its subject.
MIN_ENTRY_SENTENCE_CHARS = 15
MIN_ENTRY_SENTENCE_WORDS = 3
MAX_SENTENCE_CHARS = 400
# A quote must match the question at least half as well as the best one does: the third of
# three quotes should not be a sentence that shares one word with the question.
MIN_SHARE_OF_BEST = 0.5
# Two pages that state one thing in nearly the same words are one quote with both cited.
SAME_STATEMENT = 0.8


def sentences_of(passage: str) -> list[str]:
    """The whole sentences of a passage, of a length worth quoting, less those that only send
    the reader elsewhere ("See Section 25.1.").

    A passage flattened from a reference page runs its list of entries together ("-
    autovacuum_vacuum_threshold (integer) - Specifies the minimum number of …"): a sentence of
    an entry that does not name it is quoted under the entry's name, which is its subject
    ("autovacuum_vacuum_threshold: Specifies the minimum number of …"); alone it would say
    nothing of what it describes.
    """
    found = []
    for labelled, sentence in (
        (read, cell.strip())
        for read in labelled_sentences(passage)
        for cell in _TABLE_CELL.split(" ".join(read.text.split()))
    ):
        named = labelled.entry and _is_a_name(labelled.label)
        if labelled.row and not named:
            continue  # a row of a table whose first cell names nothing: cells run together
        name = bare_name(labelled.label) if named else ""
        under_entry = bool(name) and name not in sentence.casefold()
        shortest = MIN_ENTRY_SENTENCE_CHARS if under_entry else MIN_SENTENCE_CHARS
        if not shortest <= len(sentence) <= MAX_SENTENCE_CHARS or sentence[-1] not in ".!?":
            continue
        if under_entry and len(sentence.split()) < MIN_ENTRY_SENTENCE_WORDS:
            continue
        if _cut_at_brackets(sentence):
            continue  # a splitter took "e.g." in parentheses for a sentence's end
        # Quoted word for word: a sentence that only points goes, one that also says
        # something stays whole (a cut sentence would no longer be the source's).
        if without_pointers(sentence):
            found.append(f"{labelled.label}: {sentence}" if under_entry else sentence)
    return found


def _cut_at_brackets(sentence: str) -> bool:
    """Whether the sentence was cut inside parentheses: it closes one it never opened ("HTTP
    version), you have to …") or ends inside one ("… than request headers (e.g.")."""
    depth = 0
    for char in sentence:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return True
    return depth != 0


def _is_a_name(label: str) -> bool:
    """Whether an entry's label is a name a sentence can be quoted under (`autovacuum`,
    `-a, --all`, `Queue.get(block=True)`), not a field of a box (`Syntax:`) or words a
    flattened table ran together (`pipe format`)."""
    bare = _PARENTHESES.sub("", label).strip()
    return (
        bool(bare)
        and not bare.endswith(":")
        and all(len(part.split()) == 1 for part in bare.split(", "))
    )


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
