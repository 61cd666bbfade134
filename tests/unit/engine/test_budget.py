"""The session meter: prices, caps, and when research must stop."""

from __future__ import annotations

import pytest

from engine.budget import (
    Caps,
    Meter,
    Spend,
    budget_reached,
    call_fits,
    metering,
)
from engine.config import SettingsError, settings_from_mapping
from engine.events import UsageUpdated
from engine.progress_text import describe_spend
from engine.sessions_log import spend_of


def priced(model: str) -> tuple[float, float]:
    return {"big": (2.0, 8.0)}.get(model, (0.0, 0.0))


def test_a_call_is_priced_per_million_input_and_output_tokens() -> None:
    meter = Meter(Caps(), priced)
    assert meter.record("writer", "big", 1_000_000, 500_000) == pytest.approx(6.0)
    assert meter.record("researcher", "local", 10_000, 10_000) == 0.0
    assert meter.spent.cost_usd == pytest.approx(6.0)
    assert meter.spent.by_role["writer"].calls == 1
    assert meter.spent.by_role["researcher"].input_tokens == 10_000


def test_without_caps_research_never_stops() -> None:
    meter = Meter(Caps(), priced)
    meter.record("researcher", "big", 10**9, 10**9)
    assert not meter.research_must_stop(report_tokens=10**9)


def test_research_stops_when_the_next_call_and_the_report_would_cross_the_token_cap() -> None:
    meter = Meter(Caps(tokens=10_000), priced)
    for _ in range(4):
        meter.record("researcher", "local", 1_000, 0)  # 4,000 spent, 1,000 a call
    # Next call 1,000 and the report at least 2,000: 7,000 fits under 10,000.
    assert not meter.research_must_stop()
    # A report reading 5,500 tokens would cross it.
    assert meter.research_must_stop(report_tokens=5_500)
    meter.record("researcher", "local", 3_500, 0)  # 7,500 spent over 5 calls
    assert meter.research_must_stop()


def test_a_research_call_is_priced_at_the_largest_call_and_calls_in_flight_count() -> None:
    meter = Meter(Caps(tokens=10_000), priced)
    for size in (100, 100, 2_000):
        meter.record("researcher", "local", size, 0)  # 2,200 spent, the largest 2,000
    # Priced at the average (733) this would fit; at the largest: 2,200 + 2,000 + 1,467.
    assert not meter.research_must_stop()
    meter.in_flight = 3  # three researchers asked and not yet answered: 4 x 2,000 more
    assert meter.research_must_stop()
    meter.in_flight = 0
    assert meter.research_must_stop(report_tokens=6_000)


def test_a_resumed_leg_prices_its_next_call_as_the_leg_that_stopped() -> None:
    sizes = (100, 100, 2_000)
    live = Meter(Caps(tokens=5_000), priced)
    for size in sizes:
        live.record("researcher", "local", size, 0)
    assert live.research_must_stop()  # 2,200 + 2,000 + 1,467 > 5,000
    stored = [UsageUpdated(role="researcher", model="local", input_tokens=s) for s in sizes]
    resumed = Meter(Caps(tokens=5_000), priced, spend_of(stored))
    assert resumed.largest_call == 2_000
    assert resumed.research_must_stop()


def test_the_reports_own_calls_do_not_price_the_next_research_call() -> None:
    meter = Meter(Caps(tokens=18_000), priced)
    for _ in range(3):
        meter.record("researcher", "local", 1_000, 0)
    meter.record("writer", "local", 6_000, 0)  # a partial report, read from everything
    assert meter.largest_call == 1_000
    # A raised cap after a partial report: 9,000 spent, the next research call priced at the
    # average (2,250), the report at twice it: 15,750 fits. Priced at the writer's 6,000 call,
    # it would not (19,500).
    assert not meter.research_must_stop()


def test_a_call_of_known_size_fits_what_the_caps_leave() -> None:
    assert call_fits(10**9)  # no meter, no caps
    meter = Meter(Caps(tokens=10_000), priced)
    meter.record("researcher", "local", 9_000, 0)
    with metering(meter):
        assert call_fits(900)
        assert not call_fits(1_100)
    dollars = Meter(Caps(usd=1.0), priced)
    dollars.record("writer", "big", 400_000, 0)  # $0.80, $2 a million tokens
    with metering(dollars):
        assert call_fits(90_000) and not call_fits(110_000)


def test_the_dollar_cap_uses_the_prices() -> None:
    meter = Meter(Caps(usd=0.9), priced)
    meter.record("writer", "big", 100_000, 0)  # $0.20
    assert not meter.research_must_stop()
    meter.record("writer", "big", 100_000, 0)  # $0.40, and 3 average calls more: $1.00
    assert meter.research_must_stop()
    assert meter.summary() == "$0.40 of $0.90"


def test_budget_reached_is_announced_once_and_only_inside_a_run() -> None:
    assert budget_reached() is None  # no meter: nothing to stop
    meter = Meter(Caps(tokens=100), priced)
    meter.record("researcher", "local", 90, 0)
    with metering(meter):
        first = budget_reached()
        again = budget_reached()
    assert first == again == "budget reached (90 of 100 tokens)"
    assert meter.stop_reason == first


def test_the_report_is_priced_at_the_passages_its_sections_will_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from engine.citations.evidence import EvidenceRecord
    from engine.citations.registry import SourceRegistry
    from engine.nodes.report_estimate import report_tokens
    from engine.nodes.section_inputs import SECTION_OUTPUT_TOKENS
    from tests.unit.engine.conftest import make_settings

    settings = make_settings(tmp_path)
    claim = "Alpha queues hold items until a consumer takes them."
    record = EvidenceRecord(id="u-e1", claim=claim, source_urls=["alpha.md"])

    def estimate(passage: str) -> int:
        registry = SourceRegistry()
        registry.add_document("alpha.md", "Alpha", passage)
        state = {
            "question": "How do alpha queues work?",
            "evidence_ledger": [record.model_dump()],
            "registry": registry.to_dict(),
        }
        return report_tokens(state, settings)

    short, long = estimate(claim), estimate(f"{claim} " + "Alpha queues keep order. " * 60)
    # The same finding read beside a longer passage costs the section's call more.
    assert long - short > 100
    assert short > SECTION_OUTPUT_TOKENS
    # Before research has found anything, each approved track is priced as a section to come.
    plan = {
        "scope": "Alpha queues",
        "tracks": [
            {"title": f"Track {n}", "section": f"Part {n}", "queries": [f"alpha {n}"]}
            for n in range(3)
        ],
    }
    one, three = (
        report_tokens({"question": "q"}, settings),
        report_tokens({"question": "q", "plan": plan}, settings),
    )
    assert three > one + 2 * SECTION_OUTPUT_TOKENS


def test_spend_is_read_back_from_stored_usage_events() -> None:
    events = [
        UsageUpdated(role="writer", model="big", input_tokens=10, output_tokens=5, cost_usd=0.5),
        UsageUpdated(role="researcher", input_tokens=7, output_tokens=3),
    ]
    spend = spend_of(events)
    assert (spend.input_tokens, spend.output_tokens, spend.calls) == (17, 8, 2)
    assert spend.cost_usd == pytest.approx(0.5)
    assert Meter(Caps(tokens=30), priced, spend).spent.tokens == 25
    assert isinstance(Spend(), Spend)


def test_the_header_text_shows_cost_and_caps() -> None:
    usage = UsageUpdated(
        total_input_tokens=12_000,
        total_output_tokens=300,
        total_cost_usd=0.123,
        budget_tokens=20_000,
        budget_usd=0.5,
    )
    assert describe_spend(usage) == " · $0.12 of $0.50 · 12.3k of 20.0k tokens"
    assert describe_spend(UsageUpdated(total_input_tokens=5)) == ""


def test_prices_budgets_and_fallbacks_are_read_from_settings() -> None:
    settings = settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "main",
            "ORCHESTRATOR_BASE_URL": "http://127.0.0.1:9/v1",
            "MODEL_PRICES": "gpt-4.1-mini=0.40/1.60, big=2/8",
            "BUDGET_USD": "0.5",
            "FALLBACK_MODELS": "spare@http://127.0.0.1:10/v1/,other",
            "WRITER_FALLBACK_MODELS": "writer-spare@http://127.0.0.1:11/v1",
        }
    )
    assert settings.price_of("big") == (2.0, 8.0)
    assert settings.price_of("unlisted") == (0.0, 0.0)
    assert [(f.model, f.base_url) for f in settings.fallbacks_for("planner")] == [
        ("spare", "http://127.0.0.1:10/v1"),
        ("other", "http://127.0.0.1:9/v1"),
    ]
    assert [f.model for f in settings.fallbacks_for("writer")] == ["writer-spare"]


@pytest.mark.parametrize(
    ("name", "value", "named"),
    [
        ("MODEL_PRICES", "gpt=cheap", "MODEL_PRICES"),
        ("MODEL_PRICES", "gpt=1/-2", "MODEL_PRICES"),
        ("FALLBACK_MODELS", "spare@ftp://host", "FALLBACK_MODELS"),
        ("WRITER_FALLBACK_MODELS", "@http://host/v1", "WRITER_FALLBACK_MODELS"),
        ("BUDGET_TOKENS", "-5", "BUDGET_TOKENS"),
    ],
)
def test_a_bad_cost_setting_names_its_variable(name: str, value: str, named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        settings_from_mapping({name: value})


@pytest.mark.parametrize(
    "prices",
    ["gpt=nan/1", "gpt=1/inf", "gpt=-inf/1", "gpt=1/NaN", "gpt=1/-0.5", "gpt=Infinity/2"],
)
def test_a_price_that_is_not_a_finite_non_negative_number_is_refused(prices: str) -> None:
    with pytest.raises(SettingsError, match="MODEL_PRICES"):
        settings_from_mapping({"MODEL_PRICES": prices})


def test_no_float_setting_takes_an_infinite_value() -> None:
    with pytest.raises(SettingsError, match="BUDGET_USD"):
        settings_from_mapping({"BUDGET_USD": "nan"})
    with pytest.raises(SettingsError, match="FETCH_TIMEOUT_SECONDS"):
        settings_from_mapping({"FETCH_TIMEOUT_SECONDS": "inf"})
