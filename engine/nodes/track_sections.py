"""The report's sections, one per approved track, and the line a section without findings
gets: why its track found nothing or was not researched (research stopped at the budget, the
cap on researchers, a failed researcher)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config import Settings
from engine.nodes.track_coverage import tracks_of_unit
from engine.schemas import ResearchPlan


def nothing_found_line(
    index: int,
    plan: ResearchPlan,
    units: Mapping[str, Mapping[str, Any]],
    settings: Settings,
    budget_stop: str | None,
) -> str:
    """One line saying why track `index` has no findings."""
    own = [unit for unit in units.values() if index in tracks_of_unit(unit, plan)]
    if not own:
        if budget_stop:
            why = f"research stopped at the budget ({budget_stop}) before it started"
        elif len(units) >= settings.max_researcher_iterations:
            cap = settings.max_researcher_iterations
            why = f"the cap of {cap} researchers (MAX_RESEARCHER_ITERATIONS) was used up"
        else:
            why = "research ended before it was started"
        return f"_This track was not researched: {why}._"
    failed = [u for u in own if u.get("status") in {"failed", "timed_out"}]
    if failed and len(failed) == len(own):
        reason = str(failed[0].get("failure_reason") or "its researcher failed")
        return f"_This track found nothing: {reason.rstrip('.')}._"
    return "_This track's research found nothing citable in the retrieved sources._"
