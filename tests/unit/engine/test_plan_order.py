"""Which tracks research reaches: the order the engine dispatches them in, cut at the limit."""

from __future__ import annotations

from engine.plan_order import track_order, tracks_over_limit
from engine.schemas import ResearchPlan, ResearchTrack


def _plan(*titles: str) -> ResearchPlan:
    return ResearchPlan(
        scope="Storage engines",
        tracks=[
            ResearchTrack(title=title, section=title.title(), queries=[f"{title} query"])
            for title in titles
        ],
    )


PROPOSED = _plan("write path", "read path", "compaction", "durability")


def test_within_the_limit_no_track_is_left_out() -> None:
    assert tracks_over_limit(PROPOSED, PROPOSED, 4) == []
    assert tracks_over_limit(PROPOSED, PROPOSED, 0) == [], "0: no limit known"


def test_the_last_tracks_in_plan_order_are_left_out() -> None:
    assert tracks_over_limit(PROPOSED, PROPOSED, 3) == [3]
    assert tracks_over_limit(PROPOSED, PROPOSED, 2) == [2, 3]


def test_an_edited_track_goes_first_and_pushes_another_out() -> None:
    edited = PROPOSED.model_copy(deep=True)
    edited.tracks[3] = edited.tracks[3].model_copy(update={"title": "durability and fsync"})
    assert track_order(edited, edited=["durability and fsync"])[0] == 3
    assert tracks_over_limit(PROPOSED, edited, 3) == [2]


def test_tracks_the_feedback_names_go_before_the_rest() -> None:
    assert tracks_over_limit(PROPOSED, PROPOSED, 3, ["more on compaction please"]) == [3]
    assert tracks_over_limit(PROPOSED, PROPOSED, 2, ["durability matters most"]) == [1, 2]


def test_tracks_edited_at_an_earlier_review_still_go_first() -> None:
    """The engine remembers what the person edited before a revision; so does the count."""
    assert tracks_over_limit(PROPOSED, PROPOSED, 3, edited_before=["durability"]) == [2]
    gone = tracks_over_limit(PROPOSED, PROPOSED, 3, edited_before=["a track since deleted"])
    assert gone == [3]
