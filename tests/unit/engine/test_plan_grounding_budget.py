"""The planner's search results shrink with the model's window, cut at line ends."""

from __future__ import annotations

from engine.config import settings_from_mapping
from engine.nodes.scope import clip_blocks, grounding_budget_chars


def _block(query: str, lines: int) -> str:
    results = (f"[{n}] result line {n} " + "x" * 60 for n in range(lines))
    return "\n".join([f"### {query}", *results])


def test_small_windows_get_a_smaller_share_of_search_results() -> None:
    small = settings_from_mapping({"MODEL_MAX_INPUT_TOKENS": "16384"})
    large = settings_from_mapping({"MODEL_MAX_INPUT_TOKENS": "128000"})
    assert grounding_budget_chars(small) < grounding_budget_chars(large)
    assert grounding_budget_chars(small) <= 16384 * 4 // 8


def test_blocks_are_cut_to_equal_shares_at_line_ends() -> None:
    blocks = [_block("asyncio", 200), _block("threads", 5)]
    clipped = clip_blocks(blocks, 4000)
    assert len("".join(clipped)) <= 4000 + 10
    assert clipped[0].startswith("### asyncio") and clipped[0].endswith("\n…")
    assert all(line.endswith("x") for line in clipped[0].splitlines()[1:-1])
    assert clipped[1] == blocks[1]  # a short block is kept whole


def test_blocks_within_the_budget_are_untouched() -> None:
    blocks = [_block("asyncio", 3)]
    assert clip_blocks(blocks, 100_000) == blocks
