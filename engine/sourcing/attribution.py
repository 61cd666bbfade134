"""Cite an uncited answer from the passages its model was shown, where the words match.

Small models often answer correctly from the search results yet write no `[n]` at all, or
cite the first sentence and none after it; the verifier would then call those sentences
unverified. Each uncited sentence that shares most of its content words with one shown
passage gets that passage's number; a sentence the model cited keeps its own markers. Nothing is
cited that the passage does not lexically contain, and a sentence matching no passage
stays uncited (the verifier and the report's banner say what that means).
"""

from __future__ import annotations

from engine.sourcing.source_numbers import SourceCatalog, body_of, cited_numbers
from engine.text.markers import cite_sentence
from engine.text.sentences import PROSE_SENTENCE_BREAK_RE
from engine.text.words import content_words

_SENTENCE_END = PROSE_SENTENCE_BREAK_RE
MIN_SHARED_WORDS = 3
MIN_SHARE = 0.5


def _best_source(sentence: str, catalog: SourceCatalog) -> int | None:
    wanted = content_words(sentence)
    if len(wanted) < MIN_SHARED_WORDS:
        return None
    best, best_share = None, 0.0
    for number, passage in catalog.passages.items():
        shared = wanted & content_words(catalog.entries[number][0] + " " + passage)
        share = len(shared) / len(wanted)
        if len(shared) >= MIN_SHARED_WORDS and share > best_share:
            best, best_share = number, share
    return best if best_share >= MIN_SHARE else None


def attribute_uncited(answer: str, catalog: SourceCatalog) -> str:
    """The answer with matching passages cited in the sentences the model left uncited."""
    body = body_of(answer)
    if not catalog.passages:
        return answer
    tail = answer[len(body) :]
    out: list[str] = []
    in_code = False
    for line in body.split("\n"):
        if line.strip().startswith("```"):
            in_code = not in_code
        if in_code or not line.strip() or line.lstrip().startswith(("#", "```", "|")):
            out.append(line)
            continue
        sentences = _SENTENCE_END.split(line)
        cited = []
        for sentence in sentences:
            number = None if cited_numbers(sentence) else _best_source(sentence, catalog)
            cited.append(cite_sentence(sentence, number) if number is not None else sentence)
        out.append(" ".join(cited))
    return "\n".join(out) + tail
