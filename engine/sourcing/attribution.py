"""Cite an uncited answer from the passages its model was shown, where the words match.

Small models often answer correctly from the search results yet write no `[n]` at all, or
cite the first sentence and none after it; the verifier would then call those sentences
unverified. Each uncited sentence that shares most of its content words with one shown
passage gets that passage's number; a sentence the model cited keeps its own markers. Nothing is
cited that the passage does not lexically contain, and a sentence matching no passage
stays uncited (the verifier and the report's banner say what that means).
"""

from __future__ import annotations

import re

from engine.sourcing.source_numbers import SourceCatalog, body_of, cited_numbers
from engine.text.stopwords import STOPWORDS

_WORD = re.compile(r"[a-z0-9_][a-z0-9_.]*[a-z0-9_]|[a-z0-9]", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*])")
MIN_SHARED_WORDS = 3
MIN_SHARE = 0.5


def content_words(text: str) -> set[str]:
    """Lowercased words of `text` that carry meaning (stopwords out).

    A dotted name also counts by its parts: `functools.lru_cache` matches `lru_cache`.
    """
    words: set[str] = set()
    for word in _WORD.findall(text):
        word = word.lower().strip(".")
        words.add(word)
        if "." in word:
            words.update(part for part in word.split(".") if part)
    return words - STOPWORDS


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


def cite_sentence(sentence: str, number: int) -> str:
    """`sentence` with `[number]` before its final stop (or at its end)."""
    stripped = sentence.rstrip()
    if stripped and stripped[-1] in ".!?":
        return f"{stripped[:-1]} [{number}]{stripped[-1]}"
    return f"{stripped} [{number}]"


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
