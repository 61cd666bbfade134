"""The person's plan edits kept through a revision the model was asked to make.

A small model asked to revise an edited plan often answers with the plan it proposed before
the edits, silently undoing them. Where the revision leaves an edited value as it was before
the edit, the person's value goes back; a value the model chose afresh (different from both)
stands, since the feedback asked for changes. Plans carry no track ids, so tracks are matched
by their fields: the one sharing the most of title, section and queries, the nearest in
position on a tie.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from engine.schemas import MAX_TRACKS, ResearchPlan

Plan = dict[str, Any]
Track = dict[str, Any]

PLAN_FIELDS = ("scope", "evidence_strategy", "output_format")
TRACK_FIELDS = ("title", "section", "queries")
# A track that returns after the person deleted it must be the deleted one, not a namesake.
SAME_TRACK_FIELDS = 2


def keep_edits(proposed: Plan, edited: Plan, revised: Plan) -> Plan:
    """`revised` with each edit that turned `proposed` into `edited` put back where the
    revision reverted it. Returns `revised` as it was if the result would not be a valid plan.
    """
    if edited == proposed:
        return revised
    kept = dict(revised)
    for field in PLAN_FIELDS:
        kept[field] = _kept_value(proposed.get(field), edited.get(field), revised.get(field))
    kept["tracks"] = _kept_tracks(proposed["tracks"], edited["tracks"], revised["tracks"])
    try:
        return ResearchPlan.model_validate(kept).model_dump(mode="json")
    except ValidationError:
        # Never worse than the model's own plan: a review with it beats a failed revision.
        return revised


def _kept_value(before: Any, edited: Any, revised: Any) -> Any:
    return edited if edited != before and revised == before else revised


def _kept_tracks(proposed: list[Track], edited: list[Track], revised: list[Track]) -> list[Track]:
    # edited index -> proposed index: the track each edited one was edited from (none: added).
    origin = _pair(proposed, edited, lambda p, e: _score(edited[e], proposed[p]))

    def before(e: int) -> Track | None:
        return proposed[origin[e]] if e in origin else None

    # revised index -> edited index: the edited track each revised one revises.
    source = _pair(edited, revised, lambda e, r: _score(revised[r], edited[e], before(e)))
    deleted = [proposed[p] for p in range(len(proposed)) if p not in origin.values()]
    kept: list[tuple[Track, int | None]] = []
    for r, track in enumerate(revised):
        e = source.get(r)
        if e is None:
            if not any(_score(track, gone) >= SAME_TRACK_FIELDS for gone in deleted):
                kept.append((track, None))
            continue
        was = before(e)
        if was is not None:
            fields = {
                f: _kept_value(was.get(f), edited[e].get(f), track.get(f)) for f in TRACK_FIELDS
            }
            track = {**track, **fields}
        kept.append((track, e))
    kept = _in_edited_order(kept, origin)
    for e in range(len(edited)):
        added_and_dropped = e not in origin and e not in source.values()
        if added_and_dropped and len(kept) < MAX_TRACKS:
            kept.insert(min(e, len(kept)), (edited[e], e))
    return [track for track, _ in kept]


def _in_edited_order(
    kept: list[tuple[Track, int | None]], origin: dict[int, int]
) -> list[tuple[Track, int | None]]:
    """The person's order back when the revision put the tracks they moved back in the order
    proposed; an order of the model's own stands."""
    slots = [k for k, (_, e) in enumerate(kept) if e is not None and e in origin]
    order = [e for k in slots if (e := kept[k][1]) is not None]
    proposed_order = [origin[e] for e in order]
    if proposed_order != sorted(proposed_order) or order == sorted(order):
        return kept
    moved = {e: entry for entry in kept if (e := entry[1]) is not None}
    reordered = list(kept)
    for slot, e in zip(slots, sorted(order), strict=True):
        reordered[slot] = moved[e]
    return reordered


def _pair(
    left: list[Track], right: list[Track], score: Callable[[int, int], int]
) -> dict[int, int]:
    """Right index -> left index: each right track in turn takes the unpaired left track it
    shares the most fields with, the nearest in position on a tie; none if it shares none."""
    paired: dict[int, int] = {}
    for r in range(len(right)):
        free = [
            (score(i, r), -abs(i - r), -i) for i in range(len(left)) if i not in paired.values()
        ]
        best = max(free, default=None)
        if best is not None and best[0] > 0:
            paired[r] = -best[2]
    return paired


def _score(track: Track, other: Track, before: Track | None = None) -> int:
    """How many fields `track` shares with `other`, or with `before`, the track `other` was
    edited from."""
    return sum(
        track.get(f) == other.get(f) or (before is not None and track.get(f) == before.get(f))
        for f in TRACK_FIELDS
    )
