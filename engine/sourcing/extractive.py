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

from engine.grounding.passages import Passage
from engine.grounding.verbatim import claim_words, found_verbatim
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.text import terms
from engine.sourcing.finding_text import finding_text
from engine.sourcing.source_numbers import SourceCatalog
from engine.text.entry_names import is_entry_name, names_entry
from engine.text.pointers import without_pointers
from engine.text.sentences import PROSE_SENTENCE_BREAK
from engine.tools.rerank import score_chunks

# A page flattened from a table runs its cells together: each is a unit of its own.
_TABLE_CELL = re.compile(r"\s+\|\s+")
# A passage flattened from a page runs its list items (" - Input - Store the byte count…")
# and table cells (" | ") together: each is a unit of its own, as a sentence is.
_PLAIN_BREAK = re.compile(rf"{PROSE_SENTENCE_BREAK}|\s+[-|]\s+")
# An enumeration's number or letter ("1) stop the server, 2) copy …") closes no parenthesis.
_ENUMERATOR = re.compile(r"(?:^|\s)(?:\d{1,2}|[a-z])$")
# How a later sentence of an entry goes on about it ("The default is 50 tuples.", "This
# parameter can only be set …", "If -1 is specified, …"); any other may be the page's next
# paragraph, which a flattened list runs into its last entry.
_GOES_ON = re.compile(
    r"^(?:The\s+default|Defaults?|This|These|It|Its|If|When|Setting|Only|Note\s+that|"
    r"(?:A|The)\s+value|Values?|Zero|Negative)\b"
)
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
    """The whole sentences of a passage, of a length worth quoting, word for word, less those
    that only send the reader elsewhere ("See Section 25.1.").

    A passage flattened from a reference page runs its list of entries together ("-
    autovacuum_vacuum_threshold (integer) - Specifies the minimum number of …"): a sentence of
    an entry that does not say the entry's name is quoted under it, the name being its subject
    ("autovacuum_vacuum_threshold: Specifies the minimum number of …"); alone it would say
    nothing of what it describes. Only the entry's first sentence and those that go on about
    it ("The default is 50 tuples.") are: a wrong name would make a true sentence false.
    """
    read = _entry_sentences(passage)
    said = [" ".join(claim_words(sentence)) for sentence in read]
    # What the page reader could not give as the page's words (a table's row, a sentence with
    # a placeholder it drops) is still quoted as the passage has it.
    return read + [
        sentence
        for sentence in _plain_sentences(passage)
        if not any(" ".join(claim_words(sentence)) in words for words in said)
    ]


def _entry_sentences(passage: str) -> list[str]:
    source = [Passage(source="", number=0, text=passage)]
    found = []
    previous_label = None
    for labelled in labelled_sentences(passage):
        first_of_entry = labelled.label != previous_label
        previous_label = labelled.label
        named = labelled.entry and is_entry_name(labelled.label)
        for cell in _TABLE_CELL.split(" ".join(labelled.text.split())):
            sentence = cell.strip()
            under_entry = (
                named
                and (first_of_entry or bool(_GOES_ON.match(sentence)))
                and not names_entry(labelled.label, sentence)
            )
            shortest = MIN_ENTRY_SENTENCE_CHARS if under_entry else MIN_SENTENCE_CHARS
            if under_entry and len(sentence.split()) < MIN_ENTRY_SENTENCE_WORDS:
                continue
            if not _quotable(sentence, shortest):
                continue
            # The reader may have dropped a type (`{integer}`) or ended an item with a stop;
            # what is quoted must be the page's own words, in its order.
            if found_verbatim(sentence, source, min_words=1) is None:
                continue
            found.append(f"{labelled.label}: {sentence}" if under_entry else sentence)
    return found


def _plain_sentences(passage: str) -> list[str]:
    """The passage cut at its sentence stops, list dashes and table bars, as it stands."""
    return [
        piece.strip()
        for piece in _PLAIN_BREAK.split(" ".join(passage.split()))
        if _quotable(piece.strip(), MIN_SENTENCE_CHARS)
    ]


def _quotable(sentence: str, shortest: int) -> bool:
    if not shortest <= len(sentence) <= MAX_SENTENCE_CHARS or sentence[-1] not in ".!?":
        return False
    # Quoted word for word: a sentence that only points goes, one that also says something
    # stays whole (a cut sentence would no longer be the source's).
    return not _cut_at_brackets(sentence) and bool(without_pointers(sentence))


def _cut_at_brackets(sentence: str) -> bool:
    """Whether the sentence was cut inside parentheses: it closes one it never opened ("HTTP
    version), you have to …", the tail of a parenthesis that held a sentence's end) or ends
    inside one."""
    depth = 0
    for at, char in enumerate(sentence):
        if char == ")" and not depth and _ENUMERATOR.search(sentence[max(0, at - 3) : at]):
            continue  # "1) stop the server": an enumeration's mark, outside any parenthesis
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return True
    return depth != 0


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
    # A search passage opens with its page's title as a sentence ("mod_deflate - Apache HTTP
    # Server Version 2.4."): it matches every topic about the page and says nothing, so the
    # quotes would all be titles, each dropped afterwards as no finding (`finding_text`).
    candidates = [
        (number, sentence)
        for number, passage in catalog.passages.items()
        for sentence in sentences_of(passage)
        if finding_text(sentence, catalog.entries.get(number, ()))
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
