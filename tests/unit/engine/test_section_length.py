"""The writer's reply is ended once it has completed the claims that are kept, counted as the
reply will be read."""

from __future__ import annotations

import json

from engine.models.compat.reply_watch import WatchedText
from engine.nodes.section_length import claims_complete
from engine.nodes.section_writer import claims_from_prose

CLAIMS = [
    {"text": f"Setting {n} has a default. It can be changed per table.", "source_ids": [n]}
    for n in range(6)
]


def _stopped_at(text: str, limit: int, *, structured: bool) -> str:
    """The text streamed so far when the watch fired (all of it if it never did)."""
    watched = WatchedText(
        claims_complete(limit, structured=structured, read_prose=claims_from_prose)
    )
    for end in range(1, len(text) + 1):
        if watched.add(text[end - 1]):
            return text[:end]
    return text


def test_a_json_reply_is_ended_once_its_kept_claims_are_complete():
    whole = json.dumps({"claims": CLAIMS})
    cut = _stopped_at(whole, 4, structured=True)
    assert len(cut) < len(whole)
    assert cut.count('"source_ids"') in (4, 5)  # the fourth closed, the fifth at most begun
    assert whole.startswith(cut)


def test_sentences_inside_claims_or_before_the_json_are_not_claims():
    """Seen on small models: "Sure! Here is the JSON:" before the object, two sentences a claim."""
    whole = "Sure! Here are the claims. I wrote them from the passages.\n" + json.dumps(
        {"claims": CLAIMS}
    )
    cut = _stopped_at(whole, 4, structured=True)
    assert cut.count('"source_ids"') >= 4


def test_prose_is_ended_once_the_claim_after_the_kept_ones_has_begun():
    sentences = [f"Setting {n} defaults to {n}0 seconds [{n}]." for n in range(6)]
    whole = "## Timeouts.\n" + " ".join(sentences)
    cut = _stopped_at(whole, 2, structured=False)
    assert len(cut) < len(whole)
    # Read as the writer reads it, the stopped reply keeps the first two claims whole.
    kept = [claim.text for claim in claims_from_prose(cut)[:2]]
    assert kept == [claim.text for claim in claims_from_prose(whole)[:2]]


def test_a_reply_still_reasoning_is_never_ended():
    thinking = "<think>" + " ".join(f"Sentence {n} of my plan." for n in range(20))
    assert _stopped_at(thinking, 2, structured=False) == thinking
    assert _stopped_at(thinking + "{", 2, structured=True) == thinking + "{"
    answer = thinking + "</think>" + json.dumps({"claims": CLAIMS})
    cut = _stopped_at(answer, 2, structured=True)
    assert "</think>" in cut and cut.count('"source_ids"') in (2, 3)
