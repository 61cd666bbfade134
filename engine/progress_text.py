"""What a long model call is doing, in words, for every front end (CLI line, app header)."""

from __future__ import annotations

import re

from engine.events import ModelCallProgress, ReportReviewed, UsageUpdated


def describe_model_call(
    event: ModelCallProgress, *, short: bool = False, compact: bool = False
) -> str | None:
    """ "writer model (host:port): writing… 120 tokens, 35s"; None once the call is over.

    `short` leaves out the endpoint, for a status line with little room; `compact` also the
    words around the figures ("writer: 120 tokens, 35s"), for a narrow terminal.
    """
    where = event.role if compact else f"{event.role} model"
    if event.endpoint and not (short or compact):
        where += f" ({event.endpoint})"
    if event.state == "waiting":
        doing = "reading…" if compact else "reading the prompt…"
        return f"{where}: {doing} {event.elapsed_seconds:.0f}s"
    if event.state == "generating":
        tokens = f"{event.output_tokens} token{'s' if event.output_tokens != 1 else ''}"
        doing = "" if compact else "writing… "
        return f"{where}: {doing}{tokens}, {event.elapsed_seconds:.0f}s"
    if event.state == "retrying":
        return f"{where}: {event.detail}"
    return None


def describe_review(event: ReportReviewed) -> str:
    """ "review 1/2: 2 unsupported sentences, 1 section missing; revising"."""
    found = []
    if event.unsupported_claims:
        plural = "s" if event.unsupported_claims != 1 else ""
        found.append(f"{event.unsupported_claims} unsupported sentence{plural}")
    if event.missing_sections:
        count = len(event.missing_sections)
        found.append(f"{count} section{'s' if count != 1 else ''} missing")
    summary = ", ".join(found) or "nothing to fix"
    outcome = {
        "clean": "the draft stands",
        "revising": "revising",
        "revision_failed": "the revision failed; the draft stands",
        "revision_rejected": "the revision was worse; the draft stands",
        "budget_reached": "no revision within the budget; the draft stands",
    }[event.outcome]
    return f"review {event.round}/{event.max_rounds}: {summary}; {outcome}"


def format_usd(amount: float) -> str:
    """Dollars as a person reads them: cents, or fractions of a cent for small sums."""
    if amount == 0:
        return "$0"
    return f"${amount:.4f}" if amount < 0.01 else f"${amount:.2f}"


def _short_count(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def describe_spend(usage: UsageUpdated) -> str:
    """ " · $0.12 of $0.50 · 12.3k of 20.0k tokens": cost when priced, spend against caps."""
    parts = []
    if usage.total_cost_usd or usage.budget_usd:
        cost = format_usd(usage.total_cost_usd)
        parts.append(f"{cost} of {format_usd(usage.budget_usd)}" if usage.budget_usd else cost)
    if usage.budget_tokens:
        spent = usage.total_input_tokens + usage.total_output_tokens
        parts.append(f"{_short_count(spent)} of {_short_count(usage.budget_tokens)} tokens")
    return "".join(f" · {part}" for part in parts)


TITLE_WIDTH = 80
# "Label: value", the label a few words at most (so a sentence with a colon is not a label).
_LABELLED_LINE = re.compile(r"^(?P<label>[A-Za-z][A-Za-z ]{0,30}):\s*(?P<value>\S.*)$")


def unit_title(topic: str, width: int = TITLE_WIDTH) -> str:
    """A research unit's topic as one short line: its first line, without a leading label.

    Supervisors often dispatch a labelled block ("Research track: …", "Section: …",
    "Queries: …"); its first value is the track title. A free-form topic keeps its first line.
    """
    lines = [line.strip() for line in topic.splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if all(_LABELLED_LINE.match(line) for line in lines):
        match = _LABELLED_LINE.match(first)
        first = match.group("value") if match else first
    title = " ".join(first.split())
    return title if len(title) <= width else title[: width - 1].rstrip() + "…"


def follow_up_words(count: int) -> str:
    """How many follow-ups, as "+1 follow-up" or "+3 follow-ups" ("" for none)."""
    if count <= 0:
        return ""
    return f"+{count} follow-up" + ("s" if count != 1 else "")
