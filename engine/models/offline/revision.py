"""How the offline model revises a plan: the current plan plus the person's written feedback.

Both arrive as data with the call (engine.model_task): the plan under review, with the
person's edits, and their feedback as they wrote it. Each instruction (split on `;`,
sentence ends and "and then") adds a track ("add a track on costs"), drops one ("drop the
history track") or, when it is neither, becomes a requested track focused on its words.
Everything else stays as the person left it. An instruction that cannot be applied (the plan
would leave 3–6 tracks) is skipped, so the result may equal the input; the app says so when it does.
"""

from __future__ import annotations

import re

from engine.models.offline.plan import subject_of
from engine.models.offline.text import terms
from engine.schemas import MAX_TRACKS, MIN_TRACKS, ResearchPlan, ResearchTrack

_SPLIT_RE = re.compile(r"\s*(?:;|\n|\band then\b|\.\s+)\s*", re.I)
_DROP_RE = re.compile(r"^(?:please\s+)?(?:drop|remove|delete|skip|omit)\s+(?P<what>.+)$", re.I)
_ADD_RE = re.compile(
    r"^(?:please\s+)?(?:add|include|cover)\s+(?:an?\s+|one\s+)?(?:new\s+)?"
    r"(?:track|section|part)?\s*(?:on|about|for|covering|of)?\s*(?P<what>.+)$",
    re.I,
)
_TRACK_WORDS = re.compile(r"\b(?:the|a|an|track|section|part)\b", re.I)


def _closest(tracks: list[ResearchTrack], words: str) -> int | None:
    wanted = terms(_TRACK_WORDS.sub(" ", words))
    best, best_score = None, 0
    for index, track in enumerate(tracks):
        score = len(wanted & terms(f"{track.title} {track.section}"))
        if score > best_score:
            best, best_score = index, score
    return best


def _new_track(focus: str, subject: str, tracks: list[ResearchTrack]) -> ResearchTrack | None:
    focus = subject_of(focus) or focus.strip(" .")
    section = focus[:1].upper() + focus[1:]
    if len(section) < 3 or any(t.section.casefold() == section.casefold() for t in tracks):
        return None
    queries = [q for q in dict.fromkeys([f"{subject} {focus}".strip(), focus]) if q]
    return ResearchTrack(title=f"{focus} (requested)", section=section, queries=queries)


def revise_plan(plan: ResearchPlan, feedback: str, subject: str) -> ResearchPlan:
    tracks = list(plan.tracks)
    for instruction in filter(None, _SPLIT_RE.split(" ".join(feedback.split()))):
        dropped = _DROP_RE.match(instruction)
        if dropped:
            index = _closest(tracks, dropped.group("what"))
            if index is not None and len(tracks) > MIN_TRACKS:
                tracks.pop(index)
            continue
        added = _ADD_RE.match(instruction)
        track = _new_track(added.group("what") if added else instruction, subject, tracks)
        if track is not None and len(tracks) < MAX_TRACKS:
            tracks.append(track)
    return plan.model_copy(update={"tracks": tracks})
