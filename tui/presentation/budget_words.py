"""Which cap a run stopped at, and its value, in words for the end-of-run notice."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.events import BudgetReached


def budget_stop_words(event: BudgetReached) -> str:
    """The cap research stopped at ("the USD budget of $0.50 ($0.42 spent)"): of the caps
    set, the one most nearly spent, since research stops before the next call would cross it."""
    from engine.progress_text import format_usd

    caps: list[tuple[float, str]] = []
    if event.budget_tokens:
        caps.append(
            (
                event.spent_tokens / event.budget_tokens,
                f"the token budget of {event.budget_tokens:,} tokens "
                f"({event.spent_tokens:,} spent)",
            )
        )
    if event.budget_usd:
        caps.append(
            (
                event.spent_usd / event.budget_usd,
                f"the USD budget of {format_usd(event.budget_usd)} "
                f"({format_usd(event.spent_usd)} spent)",
            )
        )
    if not caps:
        return "the session's budget"
    return max(caps)[1]
