"""Text blocks the graph puts into prompts.

No model reads them back: the offline extractive model is handed the same inputs as data
(engine.model_task).
"""

from __future__ import annotations

from engine.schemas import ResearchPlan

PLAN_HEADER = "## Approved research plan"
# The writer's inputs for one section (or the summary): one JSON object after this heading.
SECTION_INPUT_HEADING = "## Section input (JSON)"


def format_plan(plan: ResearchPlan) -> str:
    """The plan as the supervisor and the writer read it."""
    lines = [PLAN_HEADER, f"Scope: {plan.scope}"]
    if plan.evidence_strategy:
        lines.append(f"Evidence strategy: {plan.evidence_strategy}")
    if plan.output_format:
        lines.append(f"Output format: {plan.output_format}")
    for number, track in enumerate(plan.tracks, start=1):
        lines.append(f"### Track {number}: {track.title}")
        lines.append(f"Section: {track.section}")
        lines.append("Queries: " + " | ".join(track.queries))
    return "\n".join(lines)
