"""A quick answer's cited sentence also cites the other pages it was shown that state it."""

from __future__ import annotations

from engine.sourcing.corroboration import corroborate
from engine.sourcing.source_numbers import SourceCatalog, complete_references

QUEUE = "The maxsize argument of asyncio.Queue defaults to 0, which means the queue is unbounded."
INDEX = "asyncio.Queue: a FIFO queue; its maxsize defaults to 0, so the queue is unbounded."
LOCKS = "asyncio.Lock is not thread-safe; a lock is acquired with async with."


def _catalog(*pages: tuple[str, str, str]) -> SourceCatalog:
    catalog = SourceCatalog({})
    for title, locator, passage in pages:
        number = catalog.number_for(title, locator)
        catalog.passages[number] = passage
    return catalog


CATALOG = _catalog(
    ("Queues", "docs/asyncio-queue.md", QUEUE),
    ("Locks", "docs/asyncio-sync.md", LOCKS),
    ("API index", "docs/asyncio-api-index.md", INDEX),
)


def test_a_second_page_that_states_the_sentence_is_cited_beside_the_first() -> None:
    answer = "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1]."

    assert corroborate(answer, CATALOG) == (
        "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1, 3]."
    )


def test_a_page_that_does_not_state_it_is_not_cited() -> None:
    answer = "asyncio.Lock is not thread-safe [2]."

    assert corroborate(answer, CATALOG) == answer


def test_a_page_stating_another_number_is_not_cited() -> None:
    catalog = _catalog(
        ("Queues", "docs/asyncio-queue.md", QUEUE),
        ("Old notes", "docs/old.md", INDEX.replace("0,", "10,")),
    )
    answer = "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1]."

    assert corroborate(answer, catalog) == answer


def test_another_section_of_the_same_page_is_not_a_second_page() -> None:
    catalog = _catalog(
        ("Queues", "docs/asyncio-queue.md", QUEUE),
        ("Queues — Queue", "docs/asyncio-queue.md#queue", INDEX),
    )
    answer = "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1]."

    assert corroborate(answer, catalog) == answer


def test_an_uncited_sentence_is_left_to_attribution() -> None:
    answer = "The default maxsize of asyncio.Queue is 0, so the queue is unbounded."

    assert corroborate(answer, CATALOG) == answer


def test_the_added_page_is_listed_under_the_answers_own_references() -> None:
    answer = (
        "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1].\n\n"
        "## References\n[1] Queues — docs/asyncio-queue.md\n"
    )

    corroborated = corroborate(answer, CATALOG)

    assert "unbounded [1, 3]." in corroborated
    assert corroborated.endswith(
        "[1] Queues — docs/asyncio-queue.md\n[3] API index — docs/asyncio-api-index.md\n"
    )


def test_an_answer_numbering_its_sources_its_own_way_is_left_alone() -> None:
    answer = (
        "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1].\n\n"
        "## References\n[1] API index — docs/asyncio-api-index.md\n"
    )

    assert corroborate(answer, CATALOG) == answer


def test_without_a_references_section_the_catalog_lists_the_added_page() -> None:
    answer = "The default maxsize of asyncio.Queue is 0, so the queue is unbounded [1]."

    completed = complete_references(corroborate(answer, CATALOG), CATALOG)

    assert "[3] API index — docs/asyncio-api-index.md" in completed


def test_a_page_sharing_the_words_but_not_the_code_name_is_not_cited() -> None:
    catalog = _catalog(
        ("typing", "docs/typing.md", "The __optional_keys__ attribute is new in typing 3.9."),
        ("typing notes", "docs/notes.md", "The __required_keys__ attribute is new in typing 3.9."),
    )
    answer = "The __optional_keys__ attribute is new in typing 3.9 [1]."

    assert corroborate(answer, catalog) == answer
