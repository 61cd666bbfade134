"""The engine's stopwords: function words out, what a claim or a question is about kept."""

from __future__ import annotations

from engine.text.stopwords import QUESTION_STOPWORDS, STOPWORDS, is_question_stopword


def test_a_claims_quantifiers_and_negations_are_not_stopwords() -> None:
    # "at most 512", "only once", "not thread-safe": these words are what a claim says.
    assert {"most", "only", "all", "never", "no"}.isdisjoint(STOPWORDS)


def test_a_question_is_read_without_the_words_it_asks_with() -> None:
    assert {"explain", "compare", "difference", "most", "the"} <= QUESTION_STOPWORDS
    assert STOPWORDS < QUESTION_STOPWORDS


def test_a_word_in_capitals_names_something() -> None:
    assert is_question_stopword("get") and is_question_stopword("Get")
    assert not is_question_stopword("GET")
    assert not is_question_stopword("queue")
