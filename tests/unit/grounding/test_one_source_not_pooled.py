"""A source's passages are read one at a time: words strewn over a long page do not add up
to a sentence the page never states. Seen on a PostgreSQL page: "The default value is on, but
it must be enabled along with track_counts for autovacuum to work" scored 1.0 against the
page's 69 pieces pooled, 0.625 against the page as one text."""

from __future__ import annotations

from engine.grounding.score import score_claim

CLAIM = "The autovacuum launcher is enabled by default and needs track_counts to work."
# Each passage states part of the claim's words, about something else.
PIECES = [
    "The autovacuum launcher starts workers for each database in turn.",
    "Statistics collection is enabled by default; track_counts controls it.",
    "Index cleanup may not work on some access methods.",
]


def test_the_passages_of_one_source_are_not_pooled() -> None:
    pooled_before = score_claim(CLAIM, PIECES)  # each passage a source of its own
    one_page = score_claim(CLAIM, PIECES, ["routine-vacuuming.html"] * len(PIECES))
    assert pooled_before.status == "supported"
    assert one_page.status != "supported" and one_page.score < pooled_before.score


def test_a_claim_citing_two_sources_still_takes_words_from_each() -> None:
    both = score_claim(
        "Autovacuum is enabled by default and workers vacuum each database in turn.",
        ["Autovacuum is enabled by default.", "Workers vacuum each database in turn."],
        ["runtime-config-autovacuum.html", "routine-vacuuming.html"],
    )
    assert both.status == "supported"
