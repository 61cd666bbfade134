"""A claim that negates what its source affirms (or affirms what it negates) is unsupported,
even when the two share only part of their words: the negated word decides."""

from __future__ import annotations

from engine.grounding.score import score_claim

TASK_CANCEL = (
    "Therefore, unlike Future.cancel(), Task.cancel() does not guarantee that the Task will be "
    "cancelled, although suppressing cancellation completely is not common and is actively "
    "discouraged."
)
CONDITION_NOTIFY = (
    "The lock must be acquired before this method is called and released shortly after. If "
    "called with an unlocked lock a RuntimeError error is raised."
)
THREADSAFE = (
    "asyncio.run_coroutine_threadsafe(coro, loop) - Submit a coroutine to the given event loop. "
    "Thread-safe."
)


def test_affirming_what_the_source_negates_is_unsupported() -> None:
    claim = "Task.cancel() guarantees that the Task will be cancelled."
    verdict = score_claim(claim, [TASK_CANCEL])
    assert verdict.status == "unsupported"


def test_negating_what_the_source_affirms_is_unsupported() -> None:
    verdict = score_claim("asyncio.run_coroutine_threadsafe() is not thread-safe.", [THREADSAFE])
    assert verdict.status == "unsupported"


def test_negating_what_the_source_requires_is_unsupported() -> None:
    verdict = score_claim(
        "The lock need not be acquired before Condition.notify() is called.", [CONDITION_NOTIFY]
    )
    assert verdict.status == "unsupported"


def test_the_same_negation_in_other_words_stays_supported() -> None:
    verdict = score_claim(
        "Task.cancel() does not guarantee that the Task will be cancelled.", [TASK_CANCEL]
    )
    assert verdict.status != "unsupported"


def test_the_same_requirement_in_other_words_stays_supported() -> None:
    verdict = score_claim(
        "Before Condition.notify() is called, the lock must be acquired.", [CONDITION_NOTIFY]
    )
    assert verdict.status != "unsupported"
