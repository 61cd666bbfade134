"""A deep report's outline: headings that read as titles of what the question is about."""

from __future__ import annotations

from engine.models.offline.plan import plan_for


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
