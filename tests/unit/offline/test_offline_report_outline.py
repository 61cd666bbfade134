"""A deep report's outline: headings that read as titles of what the question is about, and
each claim once, under the heading it fits."""

from __future__ import annotations

from engine.models.offline import writer
from engine.models.offline.plan import plan_for
from engine.prompt_blocks import LedgerLine
from engine.schemas import ResearchTrack


def _sections(question: str, prompt: str = "") -> list[str]:
    return [track.section for track in plan_for(question, prompt).tracks]


def test_headings_name_the_subjects_not_what_they_do() -> None:
    sections = _sections("How do asyncio queues and locks coordinate tasks?")
    assert sections[:2] == ["Asyncio queues", "Locks"]
    sections = _sections("How does the event loop schedule callbacks in asyncio?")
    assert "Event loop schedule callbacks" not in sections


def test_code_names_head_the_outline_as_written() -> None:
    question = (
        "Which exception is raised when a blocking threading call is given a timeout larger "
        "than threading.TIMEOUT_MAX?"
    )
    sections = _sections(question)
    assert sections[0] == "threading.TIMEOUT_MAX"
    # The kind of answer asked for and the question's verbs are no headings.
    assert not {"Exception", "Raised", "Given"} & set(sections)


def test_what_the_question_asks_for_is_no_heading() -> None:
    sections = _sections("In which Python version was the functools.cache decorator added?")
    assert "functools.cache decorator" in sections
    assert "Python version" not in sections
    sections = _sections("What path delimiter does path.delimiter provide on Windows?")
    assert sections[0] == "path.delimiter"


def test_page_titles_head_sections_only_of_one_subject_questions_and_on_topic() -> None:
    grounding = (
        "## Search results\n"
        'Search results for "asyncio":\n\n'
        "[1] multiprocessing — Process-based parallelism\nDocument: multiprocessing.html\n"
        "Queues and locks for processes.\n\n"
        "[2] Task groups — Python documentation\nDocument: tg.html\n"
        "Task groups cancel the remaining tasks.\n"
    )
    assert "multiprocessing" not in {
        s.lower() for s in _sections("How do asyncio queues and locks coordinate tasks?", grounding)
    }
    assert "Task groups" in _sections("How are asyncio tasks cancelled?", grounding)


def _line(claim: str, source: str = "a.html") -> LedgerLine:
    return LedgerLine(record_id=claim[:10], claim=claim, sources=(source,))


def test_the_same_words_under_another_entry_or_page_are_one_claim() -> None:
    ledger = [
        _line("asyncio.Lock: Not thread-safe."),
        _line("asyncio.Condition(lock=None): Not thread-safe."),
        _line("Tasks are used to schedule coroutines concurrently in the loop."),
        _line("Tasks are used to schedule the coroutines concurrently in the loop.", "b.html"),
    ]
    assert [line.claim for line in writer.distinct(ledger)] == [ledger[0].claim, ledger[2].claim]
    assert writer.said("asyncio.Condition(lock=None): Not thread-safe.") == "Not thread-safe."


def test_a_claim_goes_under_the_heading_it_says_most_of() -> None:
    tracks = [
        ResearchTrack(title="asyncio queues", section="Asyncio queues", queries=["asyncio queues"]),
        ResearchTrack(title="locks", section="Locks", queries=["locks"]),
        ResearchTrack(title="overview", section="Overview", queries=["asyncio overview"]),
    ]
    claim = _line("An asyncio lock can be used to guarantee exclusive access to a resource.")
    buckets = writer.assign(tracks, [claim])
    assert buckets[1] == [claim]
    assert claim not in buckets[0] + buckets[2]


def test_an_empty_section_borrows_no_claim_another_section_shows() -> None:
    tracks = [
        ResearchTrack(title="queues", section="Queues", queries=["queues"]),
        ResearchTrack(title="locks", section="Locks", queries=["locks"]),
        ResearchTrack(title="events", section="Events", queries=["events"]),
    ]
    queue = _line("A queue holds items until a consumer gets them.")
    lock = _line("A lock guards a shared resource from other tasks.")
    summary = _line("Queues and locks coordinate the tasks of one event loop.")
    buckets = writer.assign(tracks, [queue, lock, summary], [summary])
    assert buckets[0] == [queue] and buckets[1] == [lock]
    assert buckets[2] == [summary]
    # Nothing spare: the section stays empty rather than repeat another section's claim.
    assert writer.assign(tracks, [queue, lock])[2] == []
