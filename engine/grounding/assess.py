"""One cited sentence checked against everything its sources returned, without a model.

The sentence's words found verbatim in a cited source settle it: supported, decided by the
quote. Otherwise the lexical score and its screens give a verdict, decided by rule: it can
keep a sentence or mark it, and it can remove one only when no text the session retrieved
(from any source) shares its content, since only then is nothing there a reader could be
pointed at. Every verdict names the passage that decided it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.events import ClaimSupport
from engine.grounding.claims import strip_markers
from engine.grounding.passages import Passage, texts_of
from engine.grounding.score import ClaimScore, coverage, score_claim
from engine.grounding.verbatim import found_verbatim
from engine.grounding.words import without_emphasis
from engine.terminal_text import terminal_safe
from engine.text.words import stemmed_words

VERBATIM = "its source says it word for word"
# The share of a sentence's content words one retrieved window must hold for the sentence to
# share content with what was retrieved (below it, nothing there is about what it says).
# Set with a margin under the true sentences of the dev half of
# tests/fixtures/grounding/audit_cases.jsonl (bench/grounding.py): the lowest of them share
# 0.22, so at 0.2 a true sentence phrased a little further from its page was removed; half
# of that keeps removal for sentences nothing retrieved is about (dev: 8 of 73 flagged false
# sentences removed instead of 11; the others are marked).
SHARES_CONTENT_AT = 0.1
# ... and at least this many of them: one common word ("queue") is not shared content.
SHARES_CONTENT_WORDS = 2


@dataclass(frozen=True)
class Assessed:
    """A claim's verdict, and whether strict grounding may remove it."""

    claim: ClaimSupport
    removable: bool


def assessed_claim(
    claim: ClaimSupport,
    text: str,
    cited: Sequence[Passage],
    everything: Callable[[], Sequence[Passage]],
) -> Assessed:
    """`claim` (its text, numbers and sources set) with the verdict its cited passages give."""
    match = found_verbatim(text, cited)
    if match is not None:
        return Assessed(
            claim.model_copy(
                update={
                    "score": 1.0,
                    "status": "supported",
                    "reason": VERBATIM,
                    "decided_by": "quote",
                    "excerpt": terminal_safe(match.words),
                    **_place(match.passage, match.offset),
                }
            ),
            removable=False,
        )
    scored = score_claim(text, texts_of(cited), [passage.source for passage in cited])
    return Assessed(
        with_score(claim, scored, cited),
        removable=scored.status == "unsupported" and not shares_content(text, everything()),
    )


def with_score(claim: ClaimSupport, scored: ClaimScore, cited: Sequence[Passage]) -> ClaimSupport:
    """`claim` with a lexical verdict and the passage its excerpt was taken from."""
    place = located(scored.excerpt, cited)
    return claim.model_copy(
        update={
            "score": scored.score,
            "status": scored.status,
            # Quotes source text (a code name): stored and shown, so never a control sequence.
            "reason": terminal_safe(scored.reason),
            "excerpt": terminal_safe(scored.excerpt),
            "decided_by": "rule",
            **(_place(*place) if place else {}),
        }
    )


def shares_content(text: str, passages: Sequence[Passage]) -> bool:
    """Whether any retrieved text holds a good part of the sentence's content words."""
    if found_verbatim(text, passages) is not None:
        return True
    wanted = len(stemmed_words(without_emphasis(strip_markers(text))))
    share = coverage(text, texts_of(passages))
    return share >= SHARES_CONTENT_AT and share * wanted >= min(SHARES_CONTENT_WORDS, wanted)


def located(words: str, passages: Sequence[Passage]) -> tuple[Passage, int] | None:
    """The passage `words` were taken from and where, by their opening words."""
    if not words:
        return None
    head = words.removesuffix("…").strip()[:80]
    for passage in passages:
        offset = passage.text.find(head)
        if offset >= 0:
            return passage, offset
    match = found_verbatim(head, passages, min_words=1)
    return (match.passage, match.offset) if match else None


def _place(passage: Passage, offset: int) -> dict[str, object]:
    return {
        "passage_source": passage.source,
        "passage_number": passage.number + 1,
        "passage_offset": offset,
    }
