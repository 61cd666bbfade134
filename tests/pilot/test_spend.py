"""The app shows what a session spends, a model taking over, and a partial report."""

from __future__ import annotations

from pathlib import Path

from engine.events import (
    BudgetReached,
    ModelSwitched,
    PhaseChanged,
    RunFinished,
    UsageUpdated,
)
from tests.pilot.conftest import make_app
from tests.pilot.fakes import SESSION_ID, ScriptedDriver, opening, report_event
from tests.pilot.steps import ask, press_and_settle
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader


def partial_run() -> list[object]:
    return [
        PhaseChanged(phase="researching"),
        UsageUpdated(
            role="researcher",
            model="gpt-4.1-mini",
            input_tokens=9_000,
            output_tokens=1_000,
            cost_usd=0.21,
            total_input_tokens=18_000,
            total_output_tokens=2_000,
            total_cost_usd=0.42,
            budget_usd=0.5,
        ),
        ModelSwitched(
            role="writer",
            from_model="gpt-4.1",
            from_endpoint="api.openai.com",
            to_model="llama3.1",
            to_endpoint="localhost:11434",
            reason="cannot be reached",
        ),
        BudgetReached(
            spent_tokens=20_000,
            spent_usd=0.42,
            budget_usd=0.5,
            detail="research stops: budget reached ($0.42 of $0.50)",
        ),
    ]


async def test_the_header_shows_spend_the_switch_and_the_budget_stop(tmp_path: Path) -> None:
    story = {"start": [opening()], "review_plan": [partial_run()]}
    app, _ = make_app(tmp_path, ScriptedDriver(story), offline=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        text = app.screen.query_one(StatusHeader).status_text().plain
        assert "$0.42 of $0.50" in text
        assert "gpt-4.1 cannot be reached; llama3.1" in text
        assert "budget reached ($0.42 of $0.50)" in text


async def test_a_partial_run_says_how_to_continue_it(tmp_path: Path) -> None:
    ending = [
        report_event(),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID, status="partial"),
    ]
    story = {"start": [opening()], "review_plan": [partial_run() + ending]}
    app, _ = make_app(tmp_path, ScriptedDriver(story), offline=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        notice = str(app.screen.query_one(RunNotice).render())
        assert "Partial report" in notice and "ctrl+r" in notice


async def test_a_partial_run_names_the_cap_it_stopped_at_and_its_value(tmp_path: Path) -> None:
    ending = [
        report_event(),
        PhaseChanged(phase="done"),
        RunFinished(session_id=SESSION_ID, status="partial"),
    ]
    tokens_cap = BudgetReached(
        spent_tokens=150_000,
        spent_usd=0.1,
        budget_tokens=200_000,
        budget_usd=2.0,
        detail="research stops: budget reached (150,000 of 200,000 tokens; $0.10 of $2.00)",
    )
    run = [PhaseChanged(phase="researching"), tokens_cap, *ending]
    story = {"start": [opening()], "review_plan": [run]}
    app, _ = make_app(tmp_path, ScriptedDriver(story), offline=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        notice = str(app.screen.query_one(RunNotice).render())
        assert "token budget of 200,000 tokens (150,000 spent)" in notice
        assert "USD" not in notice  # the cap nearer its end is the one that stopped research
