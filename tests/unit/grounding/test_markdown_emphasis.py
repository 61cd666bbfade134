"""Markdown emphasis is markup: `_not_` in a claim is the word "not"."""

from __future__ import annotations

import pytest

from engine.grounding.score import score_claim
from engine.grounding.words import without_emphasis


def test_underscore_emphasis_is_markup_and_code_names_keep_their_underscores() -> None:
    assert without_emphasis("It names fifo, _not_ sigint.") == "It names fifo, not sigint."
    assert without_emphasis("_only once_ per call") == "only once per call"
    kept = "__init__ calls wait_for and _private; `_x_` stays"
    assert without_emphasis(kept) == kept


@pytest.mark.parametrize("negation", ["_not_", "*not*", "not"])
def test_an_emphasised_negation_is_still_a_negation(negation: str) -> None:
    passage = "The recorded pipeline names fifo and not sigint as the channel it waits on."
    claim = f"The recorded pipeline names fifo and {negation} sigint as the channel it waits on."
    assert score_claim(claim, [passage]).status == "supported"
