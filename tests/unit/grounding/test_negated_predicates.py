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


GATHER = (
    "If *return_exceptions* is False (default), the first raised exception is immediately "
    "propagated to the task that awaits on gather(). Other awaitables in the *aws* sequence "
    "won’t be cancelled and will continue to run."
)
ASYNCIO_WAIT = (
    "Usage: done, pending = await asyncio.wait(aws) *timeout* (a float or int), if specified, "
    "can be used to control the maximum number of seconds to wait before returning. Note that "
    "this function does not raise TimeoutError. Futures or Tasks that aren’t done when the "
    "timeout occurs are simply returned in the second set."
)
BARRIER = (
    "At that point all of the waiting tasks would unblock simultaneously. The barrier can be "
    "reused any number of times."
)
PROCESS = (
    "Process instances do not have an equivalent to the poll() method; the communicate() and "
    "wait() methods don’t have a *timeout* parameter: use the wait_for() function."
)
SHUTDOWN = (
    "Regardless of the value of *wait*, the entire Python program will not exit until all "
    "pending futures are done executing."
)
MULTILINE = (
    "Note that even in MULTILINE mode, re.match() will only match at the beginning of the "
    "string and not at the beginning of each line."
)
FULL = (
    "- full() - Return True if there are maxsize items in the queue. If the queue was "
    "initialized with maxsize=0 (the default), then full() never returns True."
)


def test_each_negation_of_a_clause_bears_on_its_own_predicate() -> None:
    claim = "If gather() sees an exception, the other awaitables are cancelled and do not continue."
    assert score_claim(claim, [GATHER]).status == "unsupported"
    same = "If gather() sees an exception, other awaitables are not cancelled and continue to run."
    assert score_claim(same, [GATHER]).status != "unsupported"


def test_a_predicate_is_compared_with_the_source_clause_saying_the_claims_main_part() -> None:
    # The condition ("when the timeout occurs") is said by another clause of the page.
    claim = "asyncio.wait() raises TimeoutError when the timeout occurs."
    assert score_claim(claim, [ASYNCIO_WAIT]).status == "unsupported"
    same = "asyncio.wait() does not raise TimeoutError when the timeout occurs."
    assert score_claim(same, [ASYNCIO_WAIT]).status != "unsupported"
    reused = "An asyncio barrier cannot be reused once its waiting tasks have been released."
    assert score_claim(reused, [BARRIER]).status == "unsupported"


def test_a_dotted_name_beside_its_own_parts_leaves_the_clause_long_enough() -> None:
    claim = "Task.cancel() guarantees that the Task will be cancelled, just like Future.cancel()."
    assert score_claim(claim, [TASK_CANCEL]).status == "unsupported"


def test_not_having_something_negates_a_noun_not_a_predicate() -> None:
    claim = "Timeouts for communicate() and wait() come from the wait_for() function."
    assert score_claim(claim, [PROCESS]).status != "unsupported"
    noun = "The communicate() and wait() methods accept no timeout argument."
    assert score_claim(noun, [PROCESS]).status != "unsupported"


def test_not_until_says_when_not_whether() -> None:
    claim = "The program still waits for every pending future to finish before the program exits."
    assert score_claim(claim, [SHUTDOWN]).status != "unsupported"


def test_a_code_name_is_never_what_a_negation_bears_on() -> None:
    claim = "re.MULTILINE does not make re.match() look at the start of every line."
    assert score_claim(claim, [MULTILINE]).status != "unsupported"


def test_a_page_that_says_it_both_ways_in_other_clauses_supports_the_claim() -> None:
    claim = "If the queue was initialized with maxsize=0, then full() never returns True."
    assert score_claim(claim, [FULL]).status != "unsupported"
