"""The offline model quotes the sentence that states the kind of fact a question asks for."""

from __future__ import annotations

from engine.models.offline.extract import best_quotes
from engine.models.offline.facts import DEFAULT, NAME, NUMBER, VERSION, fact_kinds
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.rank import Candidate, rank_candidates
from engine.models.offline.sources import Source
from engine.models.offline.text import quotable


def test_fact_kinds_read_the_form_of_the_question() -> None:
    assert fact_kinds("How many listeners can an emitter have?") == {NUMBER}
    assert fact_kinds("In which version was the slots parameter added?") == {VERSION}
    assert fact_kinds("Which exception does put_nowait() raise?") == {NAME}
    assert DEFAULT in fact_kinds("What is the default chunk size of a stream?")
    assert fact_kinds("Explain the event loop") == frozenset()


def test_a_number_question_gets_the_sentence_with_the_number() -> None:
    candidates = [
        Candidate("The stack size of new threads can be changed with the stack size call.", 0, 0),
        Candidate("The minimum supported stack size value is 32 KiB for the interpreter.", 1, 0),
    ]
    chosen = rank_candidates(candidates, "How small can the thread stack size be?", limit=1)
    assert chosen[0].text.startswith("The minimum supported stack size value is 32 KiB")


def test_a_name_question_wants_a_name_the_question_does_not_give() -> None:
    candidates = [
        Candidate("The get_nowait method of the queue returns an item if one is available.", 0, 0),
        Candidate("When the queue is empty, get_nowait raises the QueueEmpty exception.", 1, 0),
    ]
    question = "Which exception does get_nowait raise when the queue is empty?"
    assert rank_candidates(candidates, question, limit=1)[0].source_index == 1


def test_flattened_list_entries_are_split_and_labelled() -> None:
    passage = (
        "- *class* queue.SimpleQueue - Constructor for an unbounded FIFO queue. "
        "New in version 3.7. - *exception* queue.Empty - Exception raised when a non-blocking "
        "get() is called on an empty Queue object."
    )
    found = [(s.label, s.text) for s in labelled_sentences(passage)]
    assert ("queue.SimpleQueue", "New in version 3.7.") in found
    assert found[-1][0] == "queue.Empty"


def test_markdown_options_keep_their_default_under_the_option_name() -> None:
    passage = (
        "* `historySize` {number} Maximum number of history lines retained. To disable the "
        "history set this value to `0`. **Default:** `30`. * `prompt` {string} The prompt "
        "string to use. **Default:** `'> '`."
    )
    source = Source("readline.md", "Readline", False, [passage])
    quotes = best_quotes([source], "How many history lines are retained by default?", limit=1)
    assert quotes[0].text == "historySize: Default: 30."


def test_a_version_question_quotes_the_entry_version_line() -> None:
    passage = (
        "- *class* queue.SimpleQueue - Constructor for an unbounded FIFO queue. Simple queues "
        "lack advanced functionality such as task tracking. New in version 3.7. "
        "- *class* queue.Queue(*maxsize=0*) - Constructor for a FIFO queue."
    )
    source = Source("queue.html", "queue", False, [passage])
    quotes = best_quotes([source], "In which version was queue.SimpleQueue added?", limit=1)
    assert quotes[0].text == "queue.SimpleQueue: New in version 3.7."


def test_settings_with_values_are_prose_but_assignments_are_code() -> None:
    assert quotable("If the queue was initialized with maxsize=0, full() never returns True.")
    assert quotable("That is, 32K for windowBits = 15 plus a few kilobytes for small objects.")
    assert not quotable("Set the counter with count == total and continue the loop here.")
    assert quotable("When delay is larger than 2147483647 or less than 1, it is set to 1.")
