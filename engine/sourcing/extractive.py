"""Findings quoted from the results a researcher was shown, when it wrote none of its own.

A small model sometimes searches well and then never writes its findings (it loops on a
planning tool, or answers "Sources: [1], [2]"). The passages it was shown are still real,
retrieved text: the sentences of those passages that best match the unit's topic become its
findings, each cited to the result it came from, so the research is not lost. Nothing is
paraphrased or invented: every finding is a sentence a tool returned, verbatim.
"""

from __future__ import annotations

import re

from engine.sourcing.source_numbers import SourceCatalog
from engine.tools.rerank import score_chunks

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`*])")
MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 400


def sentences_of(passage: str) -> list[str]:
    """The whole sentences of a passage, of a length worth quoting."""
    found = []
    for sentence in _SENTENCE_END.split(" ".join(passage.split())):
        sentence = sentence.strip()
        if MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS and sentence[-1] in ".!?":
            found.append(sentence)
    return found


def quoted_findings(topic: str, catalog: SourceCatalog, max_findings: int) -> str:
    """Up to `max_findings` passage sentences that best match `topic`, each cited `[n]`.

    At most two sentences come from one result, so several sources are heard.
    """
    candidates = [
        (number, sentence)
        for number, passage in catalog.passages.items()
        for sentence in sentences_of(passage)
    ]
    if not candidates or max_findings <= 0:
        return ""
    scores = score_chunks([sentence for _, sentence in candidates], topic)
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    per_source: dict[int, int] = {}
    for index in ranked:
        number = candidates[index][0]
        if scores[index] <= 0 or per_source.get(number, 0) >= 2:
            continue
        per_source[number] = per_source.get(number, 0) + 1
        chosen.append(index)
        if len(chosen) >= max_findings:
            break
    lines = []
    for index in sorted(chosen):
        number, sentence = candidates[index]
        lines.append(f"- {sentence[:-1]} [{number}]{sentence[-1]}")
    return "\n".join(lines)
