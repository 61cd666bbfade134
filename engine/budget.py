"""A session's spend in tokens and dollars, and the hard caps it must stay under.

The meter belongs to a session, not to the engine: a server drives many sessions through one
compiled graph. The runner sets each leg's meter in a context variable, which every node,
researcher and middleware of that leg sees (asyncio copies it into the tasks LangGraph
starts). A leg's meter starts from what the session's stored events say it spent before, so
a resumed session counts everything.

Research stops when its next step would cross a cap with room kept for the report: the next
call, and each call still in flight, is priced at the largest call so far, and the report at
what its writer will read (at least twice the average call). The report is then written from
the evidence gathered, and says it is partial; each of its sections is priced at what it
reads before it is asked for (`call_fits`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from engine.emit import emit
from engine.events import BudgetReached
from engine.progress_text import format_usd

PriceOf = Callable[[str], tuple[float, float]]
# The next research call, and the report after it (in average calls).
_NEXT_CALL_SHARE = 1
_REPORT_SHARE = 2


@dataclass(frozen=True)
class Caps:
    """Hard caps per session; 0 means no cap."""

    tokens: int = 0
    usd: float = 0.0

    @property
    def any(self) -> bool:
        return self.tokens > 0 or self.usd > 0


@dataclass
class RoleSpend:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    largest_call: int = 0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class Spend(RoleSpend):
    """Tokens and dollars spent, in all and per role."""

    by_role: dict[str, RoleSpend] = field(default_factory=dict)

    def add(self, role: str, input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        for spend in (self, self.by_role.setdefault(role or "other", RoleSpend())):
            spend.input_tokens += input_tokens
            spend.output_tokens += output_tokens
            spend.cost_usd += cost_usd
            spend.calls += 1
            spend.largest_call = max(spend.largest_call, input_tokens + output_tokens)

    @property
    def largest_research_call(self) -> int:
        """The largest call of any role but the report's writer (a report reads everything:
        it is priced on its own). Kept with the spend, so a resumed leg prices its next call
        as the leg that stopped did."""
        return max(
            (spend.largest_call for role, spend in self.by_role.items() if role != "writer"),
            default=0,
        )


def call_cost(price_of: PriceOf, model: str, input_tokens: int, output_tokens: int) -> float:
    """USD for one call: prices are per million input and output tokens."""
    price_in, price_out = price_of(model)
    return (input_tokens * price_in + output_tokens * price_out) / 1_000_000


class Meter:
    """Counts a session's calls against its caps; decides when research must stop."""

    def __init__(self, caps: Caps, price_of: PriceOf, spent: Spend | None = None) -> None:
        self.caps = caps
        self.price_of = price_of
        self.spent = spent or Spend()
        # Why research was stopped in this leg (set once, when it is announced).
        self.stop_reason: str | None = None
        # The report's estimated cost as of the last dispatch (what researchers keep room for).
        self.report_tokens = 0
        # Calls started and not yet answered: parallel researchers each pass the check before
        # any of them is counted, so what is in flight is priced as spent already.
        self.in_flight = 0

    def record(self, role: str, model: str, input_tokens: int, output_tokens: int) -> float:
        """Count one finished call; returns its cost in USD."""
        cost = call_cost(self.price_of, model, input_tokens, output_tokens)
        self.spent.add(role, input_tokens, output_tokens, cost)
        return cost

    @property
    def largest_call(self) -> int:
        return self.spent.largest_research_call

    @property
    def average_call(self) -> float:
        return self.spent.tokens / max(1, self.spent.calls)

    def research_must_stop(self, report_tokens: int = 0) -> bool:
        """Whether one more research call, and the report after it, would cross a cap.

        A research call is priced at the largest call so far (a researcher's context only
        grows), and so is each call still in flight. `report_tokens` estimates the report
        from what its writer will read; it is priced at least at twice the average call.
        """
        next_call = max(self.average_call, self.largest_call)
        report = max(report_tokens, _REPORT_SHARE * self.average_call)
        return self.would_cross((_NEXT_CALL_SHARE + self.in_flight) * next_call + report)

    def next_call_would_cross(self) -> bool:
        """Whether one more call of average size would cross a cap (a rewrite, a review)."""
        return self.would_cross((_NEXT_CALL_SHARE + self.in_flight) * self.average_call)

    def would_cross(self, tokens_ahead: float) -> bool:
        """Whether spending `tokens_ahead` more tokens would cross a cap (dollars are priced
        at the session's cost per token so far)."""
        if not self.caps.any:
            return False
        spent = self.spent
        if self.caps.tokens and spent.tokens + tokens_ahead > self.caps.tokens:
            return True
        per_token = spent.cost_usd / spent.tokens if spent.tokens else 0.0
        return bool(self.caps.usd) and spent.cost_usd + tokens_ahead * per_token > self.caps.usd

    def summary(self) -> str:
        """What was spent of each cap, e.g. "12,400 of 12,000 tokens; $0.41 of $0.50"."""
        parts = []
        if self.caps.tokens:
            parts.append(f"{self.spent.tokens:,} of {self.caps.tokens:,} tokens")
        if self.caps.usd:
            parts.append(f"{format_usd(self.spent.cost_usd)} of {format_usd(self.caps.usd)}")
        return "; ".join(parts)


_CURRENT: ContextVar[Meter | None] = ContextVar("session_meter", default=None)


def current_meter() -> Meter | None:
    """The meter of the session leg running in this context (None outside a run)."""
    return _CURRENT.get()


@contextmanager
def metering(meter: Meter) -> Iterator[Meter]:
    token = _CURRENT.set(meter)
    try:
        yield meter
    finally:
        _CURRENT.reset(token)


def budget_reached(report_tokens: int | Callable[[], int] = 0) -> str | None:
    """The reason research must stop now ("budget reached (…)"), or None to go on.

    `report_tokens` prices the report (a callable is asked only when there is a cap). The
    first time in a leg, the stop is announced (`BudgetReached`).
    """
    meter = current_meter()
    if meter is None or not meter.caps.any:
        return None
    priced = report_tokens() if callable(report_tokens) else report_tokens
    meter.report_tokens = max(meter.report_tokens, priced)
    if not meter.research_must_stop(meter.report_tokens):
        return None
    return _announced_stop(meter)


def budget_reached_by(estimated_tokens: int) -> str | None:
    """`budget_reached` for a call whose size is known before it is made (the quick path's
    first call reads the passages it is given): None when it fits what the caps leave."""
    meter = current_meter()
    if meter is None or not meter.would_cross(estimated_tokens):
        return None
    return _announced_stop(meter)


def _announced_stop(meter: Meter) -> str:
    reason = f"budget reached ({meter.summary()})"
    if meter.stop_reason is None:
        meter.stop_reason = reason
        emit(
            BudgetReached(
                spent_tokens=meter.spent.tokens,
                spent_usd=round(meter.spent.cost_usd, 6),
                budget_tokens=meter.caps.tokens,
                budget_usd=meter.caps.usd,
                detail=f"research stops: {reason}; the report is written from the evidence so far",
            )
        )
    return reason


def spend_summary() -> str:
    """What this session has spent of its caps so far ("" outside a run or with no caps)."""
    meter = current_meter()
    return meter.summary() if meter is not None else ""


def session_usage() -> dict[str, object]:
    """The session's spend so far, per role, for a report's audit ({} outside a run)."""
    meter = current_meter()
    if meter is None:
        return {}
    spent = meter.spent

    def entry(spend: RoleSpend) -> dict[str, object]:
        return {
            "input_tokens": spend.input_tokens,
            "output_tokens": spend.output_tokens,
            "cost_usd": round(spend.cost_usd, 6),
            "calls": spend.calls,
        }

    return {
        **entry(spent),
        "budget_tokens": meter.caps.tokens,
        "budget_usd": meter.caps.usd,
        "by_role": {role: entry(spend) for role, spend in sorted(spent.by_role.items())},
    }


def research_was_stopped() -> str | None:
    """Why research was cut short by the budget in this leg, or None when it was not."""
    meter = current_meter()
    return meter.stop_reason if meter is not None else None


def another_call_allowed() -> bool:
    """Whether an optional call (a rewrite, a critic's round) fits in what the caps leave."""
    meter = current_meter()
    return meter is None or not meter.next_call_would_cross()


def call_fits(estimated_tokens: int) -> bool:
    """Whether a call of about `estimated_tokens` stays under the caps.

    For calls whose size is known before they are made (a report section reads its own
    passages): research keeps room for the report, and a section priced at the session's
    average call (a researcher's, with its long tool transcripts) would wrongly find none.
    """
    meter = current_meter()
    return meter is None or not meter.would_cross(estimated_tokens)


# A call is priced before it is made from what it reads (about four characters a token).
_CHARS_PER_TOKEN = 4


def call_tokens(texts: Iterable[str], output_tokens: int) -> int:
    """Roughly what a call costs: the texts it reads and the most it may write."""
    return sum(len(text) for text in texts) // _CHARS_PER_TOKEN + output_tokens
