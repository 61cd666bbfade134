"""A quick answer ends once it has said what was asked, not when the model runs out of words.

Given the passages, a quick answer is asked for the direct answer in one or two sentences.
Small models often go on: the neighbouring options, the passage restated, an unrelated page
summed up. Every one of those tokens is generated one at a time (a tenth of a second or more
each on a CPU server) and is more for grounding to mark. So the answer's stream is watched and
ended once it has said a sentence more than it was asked for, and the reply is cut back to
whole sentences. Code blocks are not prose: a break inside one neither counts nor cuts.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.models.compat.normalize import strip_reasoning
from engine.models.compat.reply_watch import ReplyWatch
from engine.text.sentences import PROSE_SENTENCE_BREAK_RE

# One more than the shape asks for: small models often restate the question first.
ANSWER_SENTENCES = 3
_FENCE = "```"


def _prose_breaks(text: str) -> list[int]:
    """Where each prose sentence of `text` ends (the offset of the space after it)."""
    breaks: list[int] = []
    offset = 0
    for position, part in enumerate(text.split(_FENCE)):
        if position % 2 == 0:  # outside a fenced block
            breaks += [offset + match.start() for match in PROSE_SENTENCE_BREAK_RE.finditer(part)]
        offset += len(part) + len(_FENCE)
    return breaks


def said_enough(sentences: int = ANSWER_SENTENCES) -> ReplyWatch:
    """A watch that fires once the reply has ended `sentences` sentences and begun another;
    reasoning (`<think>…`) is no sentence of the answer, and a reply still in it goes on."""
    return lambda text: len(_prose_breaks(strip_reasoning(text))) >= sentences


def first_sentences(text: str, sentences: int = ANSWER_SENTENCES) -> str:
    """`text` cut after its first `sentences` prose sentences (unchanged when it has no more)."""
    breaks = _prose_breaks(text)
    if len(breaks) < sentences:
        return text
    return text[: breaks[sentences - 1]].rstrip()


def either(*watches: ReplyWatch | None) -> ReplyWatch | None:
    """A watch that fires when any of `watches` does; None when none is set."""
    chosen: list[Callable[[str], bool]] = [watch for watch in watches if watch is not None]
    if not chosen:
        return None
    return lambda text: any(watch(text) for watch in chosen)
