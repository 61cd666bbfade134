"""What a researcher's notes quote: sentences about the topic and its section, without page
furniture, code read as words, chance matches or the same words under several entries."""

from __future__ import annotations

from engine.model_task import ModelTask
from engine.models.offline import research
from engine.models.offline import text as offline_text
from engine.models.offline.extract import best_quotes, candidates_from
from engine.models.offline.facts import NAME, fact_factor, states
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.rank import Candidate, rank_candidates
from engine.models.offline.sources import Source
from engine.models.offline.text import quotable
from engine.schemas import ResearchTrack


def _texts(passage: str, title: str = "Page") -> list[str]:
    return [c.text for c in candidates_from([Source("page.html", title, False, [passage])])]


def test_page_furniture_run_into_a_sentence_is_dropped() -> None:
    assert _texts(
        "Source code: Lib/asyncio/queues.py asyncio queues are designed to be similar to "
        "classes of the queue module."
    ) == ["asyncio queues are designed to be similar to classes of the queue module."]
    assert _texts(
        "Note For efficiency reasons, each module is only imported once per session."
    ) == ["For efficiency reasons, each module is only imported once per session."]
    assert _texts("Tasks Tasks are used to schedule coroutines concurrently.") == [
        "Tasks are used to schedule coroutines concurrently."
    ]


def test_sentences_that_are_only_furniture_are_not_quoted() -> None:
    for sentence in (
        "Reference Note The source code for asyncio can be found in Lib/asyncio/.",
        "See the loop.run_in_executor() method for more details.",
        "Usage: done, pending = await asyncio.wait(aws) timeout can be used to control it.",
    ):
        assert offline_text.without_boilerplate(sentence) is None
        assert _texts(sentence) == []


def test_code_that_reads_as_words_is_not_prose() -> None:
    assert not quotable(
        "Queues can be used to distribute workload between several concurrent tasks: import "
        "asyncio import random import time async def worker(name, queue): while True: Get it."
    )


def test_a_description_cut_after_a_word_that_needs_more_gets_no_full_stop() -> None:
    passage = "- --old - Used in older versions of Python, where - --new - The new option here."
    found = [s.text for s in labelled_sentences(passage)]
    assert "Used in older versions of Python, where" in found
    assert "Used in older versions of Python, where." not in found


def test_a_chance_match_of_one_word_is_not_quoted() -> None:
    candidates = [
        Candidate("An asyncio lock can be used to guarantee exclusive access to tasks.", 0, 0),
        Candidate("Suppose we have a Point class that holds one coordinate pair for us.", 1, 0),
    ]
    chosen = rank_candidates(candidates, "locks coordinate tasks", limit=5)
    assert [c.source_index for c in chosen] == [0]
    # Of a question of two words, one is no chance match.
    short = [
        Candidate("A task is cancelled by calling its cancel method.", 0, 0),
        Candidate("A thread cannot be cancelled from outside in Python.", 1, 0),
    ]
    assert len(rank_candidates(short, "How are tasks cancelled?", limit=5)) == 2


def test_a_sentence_far_weaker_than_the_best_is_filler() -> None:
    candidates = [
        Candidate(
            "Queue locks coordinate tasks: a queue lock coordinates the waiting tasks.", 0, 0
        ),
        Candidate(
            "Many other things happen in a running program, and tasks and queues are among the "
            "many objects that a long and winding program can create along its way, besides "
            "files, sockets, threads, buffers and timers of every kind.",
            1,
            0,
        ),
    ]
    assert len(rank_candidates(candidates, "queue locks coordinate tasks", limit=5)) == 1
    assert len(rank_candidates(candidates, "queue locks coordinate tasks", limit=5, floor=0)) == 2


def test_the_same_words_under_several_entries_are_quoted_once() -> None:
    passage = (
        "- *class* asyncio.Lock - Implements a mutex lock for asyncio tasks. Not thread-safe. "
        "- *class* asyncio.Event - An event object for asyncio tasks. Not thread-safe."
    )
    quotes = best_quotes([Source("sync.html", "Sync", False, [passage])], "asyncio tasks", limit=5)
    assert sum(q.text.endswith("Not thread-safe.") for q in quotes) == 1


def test_a_topic_that_names_code_quotes_sentences_about_that_code() -> None:
    candidates = [
        Candidate("The dataclass() decorator examines the class to find the fields.", 0, 0),
        Candidate("@functools.cache(user_function): New in version 3.9.", 1, 0),
    ]
    chosen = rank_candidates(candidates, "functools.cache decorator added", limit=5)
    assert [c.source_index for c in chosen] == [1]


def test_sentences_of_the_page_about_the_topic_count_as_about_it() -> None:
    page = Source("asyncio-queue.html", "Queues — Python documentation", False, [])
    page.passages.append("- put(item) - Put an item into the queue and wait for a free slot.")
    other = Source("misc.html", "Misc", False, ["Put an item into the queue and wait for a slot."])
    quotes = best_quotes([other, page], "asyncio queue put item", limit=1)
    assert quotes[0].source.locator == "asyncio-queue.html"


def test_a_note_for_a_section_is_about_the_section_first() -> None:
    candidates = [
        Candidate("Asyncio task cancellation is requested, and the asyncio task stops.", 0, 0),
        Candidate("A timeout stops the task when its deadline passes.", 1, 0),
    ]
    query = "asyncio task cancellation timeouts"
    assert rank_candidates(candidates, query, limit=1)[0].source_index == 0
    assert rank_candidates(candidates, query, limit=1, focus="Timeouts")[0].source_index == 1


def test_a_release_note_is_worth_less_unless_the_question_asks_when() -> None:
    note = "Changed in version 3.10: Removed the loop parameter."
    assert fact_factor(frozenset(), note, "How do asyncio queues work?") == 0.5
    assert fact_factor(frozenset({"version"}), note, "Which version removed loop?") > 1.0


def test_a_plan_track_is_ranked_by_its_queries_and_focused_by_its_section() -> None:
    def topic(track: ResearchTrack) -> research.ResearchTopic:
        return research.topic_of(ModelTask(role="researcher", track=track))

    differences = topic(
        ResearchTrack(
            title="threading versus multiprocessing: key differences",
            section="Key differences",
            queries=["threading multiprocessing", "threading multiprocessing difference"],
        )
    )
    # The title frames the section; "key" is nothing to look for, nor to focus on.
    assert "key" not in differences.scoring_text.lower()
    assert differences.focus == ""
    locks = topic(ResearchTrack(title="locks", section="Locks", queries=["locks coordinate tasks"]))
    assert locks.focus == "Locks"


def test_plurals_meet_their_singular() -> None:
    stem = offline_text.term_stem
    assert stem("queues") == stem("queue")
    assert stem("lines") == stem("line")
    assert stem("classes") == stem("class")
    assert stem("processes") == stem("process")
    assert stem("queues") != stem("quests")


def test_a_heading_run_into_the_sentence_under_it_is_dropped() -> None:
    assert _texts(
        "Executing modules as scripts When you run a Python module the code in it is executed."
    ) == ["When you run a Python module the code in it is executed."]
    kept = "If the queue is full, the call blocks until The Queue has a free slot."
    assert offline_text.without_boilerplate(kept) == kept


def test_which_function_wants_a_name_written_as_a_call() -> None:
    question = "Which function re-imports a module after you have edited it?"
    assert not states(NAME, "The variable sys.path is a list of strings for modules.", question)
    assert states(
        NAME, "Restart the interpreter or use importlib.reload() for one module.", question
    )


def test_the_same_context_is_read_once_and_callers_get_their_own_set() -> None:
    context = "asyncio.Queue(maxsize=0) A first in, first out queue of asyncio tasks."
    before = offline_text._terms.cache_info().hits
    first = offline_text.terms(context)
    first.add("changed by the caller")
    second = offline_text.terms(context)
    assert offline_text._terms.cache_info().hits > before
    assert "changed by the caller" not in second
