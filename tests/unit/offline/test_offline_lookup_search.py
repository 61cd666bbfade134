"""What a quick researcher searches for and which results it reads in full."""

from __future__ import annotations

from engine.model_task import ModelTask
from engine.models.offline import research
from engine.models.offline.sources import SourcePool


def _topic(question: str) -> research.ResearchTopic:
    return research.topic_of(ModelTask(role="quick", question=question))


def _search_output(query: str, results: list[tuple[str, str, str]]) -> str:
    blocks = [f'Search results for "{query}":', ""]
    for number, (title, key, passage) in enumerate(results, start=1):
        blocks += [f"[{number}] {title}", f"Document: {key}", passage, ""]
    return "\n".join(blocks)


def test_a_lookup_question_searches_for_the_names_it_ends_with() -> None:
    question = (
        "What is the default buffer size limit of the StreamReader returned by "
        "asyncio.open_connection()?"
    )
    topic = _topic(question)
    assert "asyncio.open_connection" in topic.queries[0].split()
    assert len(topic.queries[0].split()) <= 6
    # The narrower search keeps the names too.
    assert "asyncio.open_connection" in topic.queries[1].split()


def test_a_question_without_names_searches_its_first_words() -> None:
    topic = _topic("How long do debug mode callbacks run?")
    assert topic.queries[0] == "long debug mode callbacks run"
    assert topic.queries[1] == "long debug mode"


def test_the_results_the_searches_rank_first_are_read_first() -> None:
    first = _search_output(
        "Counter total added",
        [
            ("collections — Counter objects", "collections.html", "Counter objects."),
            ("threading", "threading.html", "Counter total version added in a newer Python."),
        ],
    )
    second = _search_output(
        "Python version Counter total",
        [
            ("typing", "typing.html", "Python version total Counter added."),
            ("collections — Counter objects", "collections.html", "Counter objects."),
        ],
    )
    outputs = [("search_web", first), ("search_web", second)]
    pool = SourcePool()
    for name, content in outputs:
        pool.add_tool_output(name, content)
    topic = research.ResearchTopic(
        "In which Python version was Counter.total() added?",
        ("Counter total added", "Python version Counter total"),
        from_plan=False,
    )
    chosen = research.fetch_choice(pool, outputs, topic)
    # Ranked first and second by the two searches, it beats pages whose passages share more
    # of the question's words.
    assert chosen[0].locator == "collections.html"


def test_a_word_in_capitals_is_searched_even_when_its_lower_case_is_a_stopword() -> None:
    # `GET` is an HTTP method; "get" is a stopword. "What happens" is the question's form.
    topic = _topic("What happens to the payload of a GET request?")
    assert topic.queries[0].split() == ["payload", "GET", "request"]
    assert "get" in offline_terms("Note that for GET requests, the payload is never parsed.")
    assert "get" not in offline_terms("You can get the payload from the request.")


def offline_terms(text: str) -> set[str]:
    from engine.models.offline.text import terms

    return terms(text)
