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


async def test_the_planner_sees_every_result_of_every_search_by_its_best_sentences() -> None:
    from types import SimpleNamespace

    from engine.nodes.scope import PLANNER_PASSAGE_CHARS, _grounding_results

    filler = "Unrelated words about something else entirely. " * 40

    async def search(query: str) -> str:
        blocks = [f'Search results for "{query}":']
        for n in range(1, 6):
            passage = f"{filler}Page {n} says {query} is tuned by setting_{n}. {filler}"
            blocks.append(f"[{n}] Page {n} on {query}\nURL: https://example.org/{n}\n{passage}")
        return "\n\n".join(blocks)

    settings = settings_from_mapping({"MODEL_MAX_INPUT_TOKENS": "16384", "PLANNER_SEARCHES": "3"})
    deps = SimpleNamespace(planner_search=search, settings=settings)
    brief = "Autovacuum thresholds matter. Cost limits slow workers down."
    shown = await _grounding_results(deps, "How does autovacuum decide?", brief)  # type: ignore[arg-type]
    assert len(shown) <= grounding_budget_chars(settings)
    for query in ("How does autovacuum decide?", "Autovacuum thresholds matter", "Cost limits"):
        for n in range(1, 6):
            assert f"Page {n} on {query}" in shown
            assert f"is tuned by setting_{n}" in shown.split(f"Page {n} on {query}")[1]
    assert all(len(line) <= PLANNER_PASSAGE_CHARS for line in shown.splitlines())
