"""The quick path's budget: how many tool calls and model turns a question may spend."""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import Settings

SYNTHESIS_ANCHOR = (
    "Research budget exhausted — synthesize the final answer now with citations [1], [2] "
    "and a References section; no more tool calls."
)


def quick_recursion_limit(settings: Settings) -> int:
    """LangGraph's step limit for one quick run: two steps per round trip plus headroom."""
    return settings.max_llm_turns * 2 + 10


@dataclass(frozen=True)
class QuickBudget:
    """Caps on tool calls (each parallel call counts) and on model turns."""

    max_tool_iterations: int
    max_llm_turns: int

    @classmethod
    def from_settings(cls, settings: Settings) -> QuickBudget:
        return cls(
            max_tool_iterations=settings.max_tool_iterations,
            max_llm_turns=settings.max_llm_turns,
        )

    def exhausted(self, *, tool_iterations: int, llm_turns: int) -> bool:
        """True when the next model call must be the tool-free synthesis.

        The last allowed model turn is always the synthesis, so a model that never stops
        asking for tools still ends with an answer instead of a recursion error.
        """
        if tool_iterations >= self.max_tool_iterations:
            return True
        return llm_turns + 1 >= self.max_llm_turns

    def remaining_tool_calls(self, tool_iterations: int) -> int:
        return max(0, self.max_tool_iterations - tool_iterations)
