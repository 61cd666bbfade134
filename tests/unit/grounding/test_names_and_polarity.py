"""The outright checks of the support scorer: swapped code names and reversed polarity."""

from __future__ import annotations

import pytest

from engine.grounding.score import score_claim


@pytest.mark.parametrize(
    ("claim", "passage", "named"),
    [
        (
            "A frozen dataclass that defines __getattr__() raises TypeError.",
            "If __setattr__() or __delattr__() is defined in the class, TypeError is raised.",
            "__setattr__",
        ),
        (
            "Python ignores SIGHUP by default so that write errors surface as exceptions.",
            "SIGPIPE is ignored by default so that write errors surface as exceptions.",
            "sigpipe",
        ),
        (
            "urlopen() raises HTTPException on protocol errors.",
            "urlopen() raises URLError on protocol errors.",
            "urlerror",
        ),
        (
            "Without a lock argument, asyncio.Condition creates a new lock.",
            "Without a lock argument, threading.Condition creates a new lock.",
            "threading.condition",
        ),
        (
            "Other objects are copied with copy.copy().",
            "Other objects are copied with copy.deepcopy().",
            "copy.deepcopy",
        ),
        (
            "Unlike Popen, Process has no equivalent of the kill() method.",
            "Unlike Popen, Process has no equivalent of the poll() method.",
            "poll",
        ),
        # A made-up option built from the page's words: the page lists its real options.
        (
            "The --aggressive-prune option makes git gc prune loose objects more aggressively.",
            "git gc [--aggressive] [--auto] [--prune=<date> | --no-prune]. The --aggressive "
            "option makes git gc prune loose objects and optimize more aggressively.",
            "--aggressive-prune",
        ),
    ],
)
def test_a_name_the_sources_replace_with_a_sibling_is_a_swap(
    claim: str, passage: str, named: str
) -> None:
    scored = score_claim(claim, [passage])
    assert scored.status == "unsupported"
    assert named in scored.reason


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        # An attribute is nobody's sibling: `__dict__` beside `__init__` is no swap.
        (
            "Instances without a mutable __dict__ cannot use cached_property.",
            "The __init__ of instances without a mutable dict cannot use cached_property.",
        ),
        # The last part said on its own is the name: "after shutdown" names shutdown.
        (
            "Calls to Executor.submit() made after Executor.shutdown() raise RuntimeError.",
            "Calls to Executor.submit() and Executor.map() made after shutdown will raise "
            "RuntimeError.",
        ),
        # Abbreviations in prose are not constants that swap: JSON beside HTTP.
        ("JSON bodies are sent over HTTPS by the client.", "The client sends JSON over HTTPS."),
        # An option written with its value is the option the page lists with a placeholder.
        (
            "Run git gc with `--prune=now` to prune loose objects at once, not --no-prune.",
            "git gc [--prune=<date> | --no-prune]. --prune=<date>: prune loose objects "
            "older than date; now prunes loose objects at once.",
        ),
    ],
)
def test_names_that_are_no_swap_are_not_flagged(claim: str, passage: str) -> None:
    assert score_claim(claim, [passage]).status != "unsupported"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        (
            "The event loop keeps strong references to every task it schedules.",
            "The event loop keeps weak references to every task it schedules.",
        ),
        (
            "The Runner constructor eagerly initializes the loop and the context.",
            "The Runner constructor lazily initializes the loop and the context.",
        ),
        (
            "The call to gather() itself is left uncancelled when one awaitable is cancelled.",
            "The call to gather() itself is cancelled when one awaitable is cancelled.",
        ),
        (
            "With exist_ok, FileExistsError is ignored even when the last path component is "
            "an existing file.",
            "With exist_ok, FileExistsError is ignored only if the last path component is not "
            "an existing file.",
        ),
    ],
)
def test_an_opposite_word_or_a_negated_predicate_is_a_conflict(claim: str, passage: str) -> None:
    scored = score_claim(claim, [passage])
    assert scored.status == "unsupported"
    assert scored.reason == "its sources state the opposite"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        # The negation belongs to the condition in the source, to nothing in the claim.
        (
            "The task runs its coroutine in a copy of the current context.",
            "The task runs its coroutine in a copy of the current context when no context "
            "is provided.",
        ),
        # "unless" says what "if ... not" says.
        (
            "SIGINT becomes KeyboardInterrupt unless the parent process changed its handler.",
            "SIGINT becomes KeyboardInterrupt if the parent process has not changed its handler.",
        ),
        # "refuses" says what "cannot" says.
        (
            "asyncio.run() refuses to run while another event loop is running in the same thread.",
            "asyncio.run() cannot be called while another event loop is running in the same "
            "thread.",
        ),
    ],
)
def test_the_same_polarity_said_another_way_is_no_conflict(claim: str, passage: str) -> None:
    assert score_claim(claim, [passage]).reason != "its sources state the opposite"


def test_stemming_from_many_threads_at_once_gives_each_word_its_stem() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from engine.text.stem import stem

    words = [
        f"{base}{suffix}{n}"
        for n in range(400)
        for base in ("cancel", "initial")
        for suffix in ("izes", "led", "lings")
    ]
    expected = {word: stem.__wrapped__(word) for word in words}  # one thread, uncached
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(stem.__wrapped__, words * 4))
    assert got == [expected[word] for word in words * 4]
