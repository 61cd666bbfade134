"""Forms of HTML reference pages the offline model must read: a question that asks what comes
back under a condition, whose condition names a quantity it does not ask for."""

from __future__ import annotations

from engine.models.offline.extract import best_quotes
from engine.models.offline.facts import CONSEQUENCE, fact_kinds
from engine.models.offline.sources import Source


def test_what_is_returned_under_a_condition_asks_for_a_consequence_not_a_number() -> None:
    question = "What is returned when a write would grow the archive beyond its maximum size?"
    assert fact_kinds(question) == frozenset({CONSEQUENCE})
    assert fact_kinds("What does the loader return if the file is missing?") == frozenset(
        {CONSEQUENCE}
    )
    # A quantity asked for outside the condition is still a number.
    assert "number" in fact_kinds("What is the maximum size of an archive?")
    passage = (
        "The maximum size of an archive is 4096 blocks. The MAX_BLOCKS setting, which is "
        "normally 2048, is the maximum number of blocks in a single archive. A write that "
        "would grow the archive larger than this will return ARCHIVE_FULL. Each block holds "
        "one record."
    )
    quotes = best_quotes([Source("limits.html", "Limits", False, [passage])], question, limit=1)
    assert quotes[0].text == (
        "A write that would grow the archive larger than this will return ARCHIVE_FULL."
    )
