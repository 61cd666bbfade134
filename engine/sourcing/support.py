"""Drop a citation whose passage shares almost nothing with the sentence that cites it.

A small model asked about something the results do not cover answers from memory and cites
`[1]` anyway ("The 1998 final was won by Brazil [1]" over a page about asyncio). The verifier
only proves that [1] was retrieved; this proves a little more: the cited passage (title and
text, as the model was shown it) must contain some of the sentence's content words. A marker
that fails is removed, so the sentence stands uncited and the answer is marked unverified when
nothing supported is left. Deliberately lenient: paraphrases pass, unrelated pages do not.
"""

from __future__ import annotations

import re

from engine.sourcing.source_numbers import SourceCatalog, body_of, cited_numbers
from engine.text.markers import NUMBERED_MARKER, SENTENCE_WITH_MARKERS_RE
from engine.text.words import content_words

SENTENCE = SENTENCE_WITH_MARKERS_RE
_MARKER = re.compile(rf"\s?{NUMBERED_MARKER}")
MIN_SHARED_WORDS = 2
MIN_SHARE = 0.25


def supports(sentence: str, passage: str) -> bool:
    wanted = content_words(_MARKER.sub("", sentence))
    if not wanted:
        return True  # nothing to check ("See [1].")
    shared = wanted & content_words(passage)
    return len(shared) >= min(MIN_SHARED_WORDS, len(wanted)) and (
        len(shared) / len(wanted) >= MIN_SHARE
    )


def _checked(sentence: str, catalog: SourceCatalog) -> str:
    def keep(match: re.Match[str]) -> str:
        numbers = cited_numbers(match.group(0))
        kept = [
            n
            for n in numbers
            if n not in catalog.passages
            or supports(sentence, f"{catalog.entries[n][0]} {catalog.passages[n]}")
        ]
        if not kept:
            return ""
        if kept == numbers and any(dash in match.group(1) for dash in "-–"):
            return match.group(0)  # a range all of whose sources support it stays a range
        space = " " if match.group(0)[:1].isspace() else ""
        return f"{space}[{', '.join(str(n) for n in kept)}]"

    return _MARKER.sub(keep, sentence)


def drop_unsupported(answer: str, catalog: SourceCatalog) -> str:
    """`answer` without the citations its shown passages do not support.

    Only an answer numbered as the catalog is (no references section of its own) is checked:
    a model's own list may number sources differently, and the verifier reads that list.
    """
    if not catalog.passages or body_of(answer) != answer:
        return answer
    lines = []
    for line in answer.split("\n"):
        if line.lstrip().startswith(("```", "|", "#")):
            lines.append(line)
            continue
        lines.append(SENTENCE.sub(lambda m: _checked(m.group(0), catalog), line))
    return "\n".join(lines)
