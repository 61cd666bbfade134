"""Which sentences a quick answer quotes: the kind of fact the question asks for, stated by the
sentence itself, about the names the question gives, spread over sources only while they
compete."""

from __future__ import annotations

from engine.models.offline.facts import CONSEQUENCE, DEFAULT, NAME, NUMBER, fact_kinds, states
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.rank import Candidate, rank_candidates
from engine.models.offline.text import quotable, terms


def test_a_question_that_opens_by_naming_what_it_wants_asks_for_a_name() -> None:
    question = "Which property changes the maximum number of listeners for all instances at once?"
    assert fact_kinds(question) == {NAME}
    assert NAME in fact_kinds("When a Request is given data, which HTTP method does it use?")


def test_a_default_mentioned_while_asking_what_happens_is_the_condition() -> None:
    question = (
        "When one awaitable passed to gather() raises and return_exceptions is left at its "
        "default, what happens to the other awaitables?"
    )
    assert fact_kinds(question) == {CONSEQUENCE}
    assert DEFAULT in fact_kinds("What is the default start method on Unix?")


def test_which_exception_wants_an_exception_not_the_entry_name() -> None:
    question = "Which exception is raised when a call is given a timeout larger than TIMEOUT_MAX?"
    assert not states(NAME, "acquire(blocking=True): Exactly one thread will be awoken.", question)
    assert states(NAME, "TIMEOUT_MAX: A larger timeout will raise an OverflowError.", question)
    assert states(NAME, "If no free slot is available, raise the Full exception.", question)


def test_names_that_start_with_an_acronym_files_and_patterns_are_names() -> None:
    question = "Which exception is asyncio.IncompleteReadError a subclass of?"
    assert states(NAME, "This exception is a subclass of EOFError.", question)
    asked = "What is a common directory name for a virtual environment?"
    assert states(NAME, "A common directory location for a virtual environment is .venv.", asked)
    assert states(NAME, "Pattern to match test files (test*.py default).", "Which file pattern?")


def test_a_number_is_new_only_when_the_question_does_not_give_it_whole() -> None:
    question = "What connection attempt delay does RFC 8305 recommend?"
    assert not states(
        NUMBER, "This is the Connection Attempt Delay as defined in RFC 8305.", question
    )
    windows = "How much memory does zlib inflate need for windowBits 15?"
    assert states(
        NUMBER, "The memory requirements for inflate are (in bytes) 1 << windowBits.", windows
    )


def test_a_named_constant_answers_what_level_or_value() -> None:
    question = "At what level is the root logger created?"
    assert states(NUMBER, "Note that the root logger is created with level WARNING.", question)
    assert not states(NUMBER, "The root logger is created lazily.", "How many loggers are there?")


def test_an_exception_named_is_a_consequence() -> None:
    sentence = "If allow_nan is false, then it will be a ValueError to serialize nan values."
    assert states(CONSEQUENCE, sentence, "What happens if dumps() serializes nan?")


def test_a_code_name_meets_the_words_it_is_made_of() -> None:
    assert {"start", "method", "multiprocess"} <= terms("multiprocessing.get_all_start_methods()")
    assert {"max", "listener", "default"} <= terms("events.defaultMaxListeners")
    assert {"eof", "error"} <= terms("EOFError")
    candidates = [
        Candidate("spawn: The default on Windows and macOS.", 0, 0),
        Candidate(
            "multiprocessing.get_all_start_methods(): On Unix 'fork' and 'spawn' are always "
            "supported, with 'fork' being the default.",
            0,
            1,
        ),
    ]
    question = "What is the default start method for multiprocessing on Unix?"
    assert rank_candidates(candidates, question, limit=1)[0].position == 1


def test_the_names_a_question_gives_weigh_more_than_its_other_words() -> None:
    candidates = [
        Candidate(
            "Changed in version 3.5: venv is now recommended for creating environments.", 0, 0
        ),
        Candidate("Changed in version 3.9: Add --upgrade-deps option to upgrade pip.", 0, 1),
    ]
    question = "Which version added the --upgrade-deps option for creating environments?"
    assert rank_candidates(candidates, question, limit=1)[0].position == 1


def test_a_source_that_alone_answers_fills_the_answer() -> None:
    candidates = [
        Candidate("The queue maxsize limits how many items the queue holds.", 0, 0),
        Candidate("A queue with maxsize zero holds any number of queue items.", 0, 1),
        Candidate("Putting items into a full queue with maxsize set blocks the caller.", 0, 2),
        Candidate("Other containers hold items too, for example lists.", 1, 0),
    ]
    chosen = rank_candidates(candidates, "queue maxsize items", limit=3)
    assert [c.source_index for c in chosen] == [0, 0, 0]


def test_text_after_left_out_passages_is_under_no_earlier_heading() -> None:
    passage = (
        "## `emitter.rawListeners(eventName)`\n\nReturns a copy of the array of listeners.\n\n"
        "[…]\n\nBy default, a maximum of 10 listeners can be registered for any single event."
    )
    last = labelled_sentences(passage)[-1]
    assert (last.label, last.entry) == ("", False)


def test_a_semicolon_between_clauses_of_words_is_prose() -> None:
    assert quotable(
        "This function can only be called from the main thread; attempting to call it from "
        "other threads will cause a ValueError exception to be raised."
    )
    assert not quotable("Reload it in place, as in import importlib; importlib.reload(m) here.")


def test_an_introduction_with_the_first_number_of_its_list_is_a_fragment() -> None:
    assert not quotable("The chronological synopsis of the underlying operation is as follows: 1.")
    assert quotable("Default: 1.", short_ok=True)
