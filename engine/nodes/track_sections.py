"""The report's sections, one per approved track, and the line a section without findings
gets: why its track found nothing or was not researched (research stopped at the budget, the
cap on researchers, a failed researcher)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config import Settings
from engine.grounding.claims import prose_line_count
from engine.nodes.track_coverage import tracks_of_unit
from engine.schemas import ResearchPlan

NOTHING_WRITTEN_LINE = "_This track's research found nothing citable in the retrieved sources._"


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
    return NOTHING_WRITTEN_LINE


# A track whose every sentence was taken out leaves its heading with nothing under it; such a
# heading goes (engine/grounding/enforce.py), and with it any sign the track was researched.
TAKEN_OUT_LINE = (
    "_This track's sentences were taken out: the retrieved sources do not support them "
    "(`deepresearch audit` lists them)._"
)


def _section_heading(line: str) -> str | None:
    return line[3:].strip() if line.startswith("## ") else None


def with_every_track(report: str, sections: list[str], line: str = TAKEN_OUT_LINE) -> str:
    """`report` with a heading and `line` for each track section it no longer has, in plan
    order, before the sources section."""
    lines = report.split("\n")
    prose = prose_line_count(report)
    present = {_section_heading(text) for text in lines[:prose]} - {None}
    missing = [heading for heading in sections if heading.strip() not in present]
    if not missing:
        return report
    body, tail = lines[:prose], lines[prose:]
    for heading in missing:
        later = sections[sections.index(heading) + 1 :]
        at = next(
            (i for i, text in enumerate(body) if _section_heading(text) in later),
            len(body),
        )
        while at > 0 and not body[at - 1].strip():
            at -= 1  # before the blank lines that end the previous section
        body[at:at] = ["", f"## {heading.strip()}", "", line]
    text = "\n".join(body).rstrip("\n") + "\n"
    return f"{text}\n" + "\n".join(tail) if tail else text
