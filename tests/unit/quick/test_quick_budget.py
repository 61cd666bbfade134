from __future__ import annotations

import pytest

from engine.config import settings_from_mapping
from engine.quick.budget import QuickBudget, quick_recursion_limit


@pytest.mark.parametrize(("turns", "limit"), [(10, 30), (3, 16), (1, 12)])
def test_recursion_limit_is_two_steps_per_turn_plus_headroom(turns: int, limit: int) -> None:
    settings = settings_from_mapping({"MAX_LLM_TURNS": str(turns)})
    assert quick_recursion_limit(settings) == limit


def test_budget_reads_the_quick_path_settings() -> None:
    settings = settings_from_mapping({"MAX_LLM_TURNS": "7", "MAX_TOOL_ITERATIONS": "3"})
    assert QuickBudget.from_settings(settings) == QuickBudget(
        max_tool_iterations=3, max_llm_turns=7
    )


def test_budget_is_spent_by_tool_calls_or_by_the_last_model_turn() -> None:
    budget = QuickBudget(max_tool_iterations=5, max_llm_turns=10)
    assert not budget.exhausted(tool_iterations=4, llm_turns=0)
    assert budget.exhausted(tool_iterations=5, llm_turns=0)
    assert budget.exhausted(tool_iterations=9, llm_turns=0)
    # The tenth turn must be the synthesis, whatever the tool count.
    assert not budget.exhausted(tool_iterations=0, llm_turns=8)
    assert budget.exhausted(tool_iterations=0, llm_turns=9)


def test_zero_tool_budget_synthesises_at_once() -> None:
    budget = QuickBudget(max_tool_iterations=0, max_llm_turns=10)
    assert budget.exhausted(tool_iterations=0, llm_turns=0)
    assert budget.remaining_tool_calls(0) == 0


def test_remaining_tool_calls_never_negative() -> None:
    budget = QuickBudget(max_tool_iterations=5, max_llm_turns=10)
    assert budget.remaining_tool_calls(2) == 3
    assert budget.remaining_tool_calls(7) == 0
