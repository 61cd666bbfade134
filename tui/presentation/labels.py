"""Plain words for the engine's enumerated values (phases, statuses, verifier reasons).

The engine's values are identifiers (`quick_research`, `awaiting_plan_review`,
`valid_citations`); a person reads these words instead. An unknown value falls back to the
identifier with underscores as spaces, so a new engine value still shows, just less nicely.

A run the person cancelled is "cancelled" wherever it shows, as the command line says it; one
that ended otherwise before it finished (quit, crashed) is "stopped". ctrl+r resumes both.
"""

from __future__ import annotations

PHASES = {
    "scoping": "reading the question",
    "clarifying": "waiting for your answer",
    "routing": "choosing quick or deep",
    "planning": "drafting the plan",
    "plan_review": "plan awaiting your review",
    "researching": "researching",
    "quick_research": "quick research",
    "writing": "writing the report",
    "verifying": "verifying citations",
    "done": "done",
    "cancelled": "cancelled",
    "failed": "failed",
    # Not engine phases: a question was sent and the engine has not yet said it began; the
    # run resumed and has not yet said where it is; the app stopped
    # the run's worker before the engine said it had stopped.
    "resuming": "resuming",
    "starting": "starting",
    "stopped": "cancelled",
}

SESSION_STATUSES = {
    "awaiting_clarification": "waiting for your answer",
    "awaiting_plan_review": "plan awaiting review",
    "running": "running",
    "interrupted": "stopped",
    "completed": "completed",
    "partial": "partial",
    "failed": "failed",
    "cancelled": "cancelled",
}

# The same statuses in a word or two, for the sessions list's Status column: the question
# gets the room (the line under the list says the status in full).
SESSION_STATUS_WORDS = {
    "awaiting_clarification": "needs answer",
    "awaiting_plan_review": "plan review",
}

UNIT_STATUSES = {"timed_out": "timed out"}


# A researcher's tools in plain words; searching depends on where the session searches.
TOOLS = {"fetch_url": "read a page", "think_tool": "reflect"}
SEARCHES = {"local": "search documents", "exa": "search the web"}

# Why plan tracks went unresearched, as the track and the report say it.
UNRESEARCHED_REASONS = {
    "enough_evidence": "enough evidence",
    "budget_reached": "budget reached",
    "unit_limit": "the research unit limit, MAX_RESEARCHER_ITERATIONS, was reached",
    "research_stopped": "research stopped first",
}

GATE_STATUSES = {"none": "not checked yet", "pass": "passed", "retry": "needs more"}


def _plain(value: str) -> str:
    return value.replace("_", " ")


def phase_label(phase: str) -> str:
    return PHASES.get(phase, _plain(phase))


def session_status_label(status: str) -> str:
    return SESSION_STATUSES.get(status, _plain(status))


def session_status_word(status: str) -> str:
    return SESSION_STATUS_WORDS.get(status) or session_status_label(status)


def unit_status_label(status: str) -> str:
    return UNIT_STATUSES.get(status, _plain(status))


def verification_reason_label(reason: str) -> str:
    from engine.verification_words import verification_reason_words

    return verification_reason_words(reason)


def gate_status_label(status: str) -> str:
    return GATE_STATUSES.get(status, _plain(status))


def unresearched_reason_label(reason: str) -> str:
    return UNRESEARCHED_REASONS.get(reason, _plain(reason))


def tool_label(tool: str, search_provider: str) -> str:
    """What a tool call did: "search documents" when the session searches the person's own
    documents, "search the web" when it searches the web."""
    if tool == "search_web":
        return SEARCHES.get(search_provider, "search")
    return TOOLS.get(tool, _plain(tool))


def unit_label(unit_id: str) -> str:
    """A research unit's short name, the same in every pane: "3" for `unit-3`, "2.1" for a
    follow-up's `unit-2.1`, "Q1" for the quick answer `quick-1` (N: the session's Nth run)."""
    kind, _, number = unit_id.partition("-")
    if kind == "unit" and number:
        return number
    if kind == "quick" and number:
        return f"Q{number}"
    return unit_id
