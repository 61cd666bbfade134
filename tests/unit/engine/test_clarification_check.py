"""A clarifying question is asked only when it asks something the question left open."""

from __future__ import annotations

import pytest

from engine.nodes.clarification_check import asks_the_question_back

QUESTION = (
    "How does PostgreSQL autovacuum decide when to vacuum and analyze a table, "
    "and which settings control it?"
)


@pytest.mark.parametrize(
    "clarification",
    [
        "What are the criteria for PostgreSQL's autovacuum to decide when to vacuum and "
        "analyze a table?",
        "How does autovacuum decide when to vacuum a table in PostgreSQL?",
    ],
)
def test_a_rephrasing_of_the_question_asks_nothing(clarification: str) -> None:
    assert asks_the_question_back(clarification, QUESTION)


@pytest.mark.parametrize(
    "clarification",
    [
        "Which PostgreSQL version do you run?",
        "Do you mean the global settings or the per-table storage parameters?",
        "Which region?",
    ],
)
def test_a_question_with_words_of_its_own_is_asked(clarification: str) -> None:
    assert not asks_the_question_back(clarification, QUESTION)


def test_a_question_of_stopwords_only_is_left_to_the_model() -> None:
    assert not asks_the_question_back("What do you mean?", QUESTION)


def test_versions_count_as_words_of_its_own() -> None:
    asked = "How do I configure gzip compression in nginx?"
    assert not asks_the_question_back("For nginx 1.x or 2.x?", asked)
