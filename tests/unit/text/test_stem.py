"""The engine's stemmer agrees with the local index's FTS5 tokenizer on which words are one."""

from __future__ import annotations

import sqlite3

import pytest

from engine.text.stem import FTS5_TOKENIZER, stem
from engine.tools.local_index import store

# Pairs the two forms of which must meet, and pairs that must stay apart, in both stemmers.
_SAME = [
    ("cancelled", "cancellation"),
    ("initializes", "initialize"),
    ("connections", "connected"),
    ("queues", "queue"),
    ("generously", "generous"),
]
_APART = [("status", "state"), ("argument", "argue"), ("timeout", "time")]


def _fts5_matches(document: str, query: str) -> bool:
    with sqlite3.connect(":memory:") as db:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS5_TOKENIZER}')")
        db.execute("INSERT INTO t VALUES (?)", (document,))
        return (
            db.execute("SELECT count(*) FROM t WHERE t MATCH ?", (f'"{query}"',)).fetchone()[0] == 1
        )


def test_the_index_tokenizes_with_the_tokenizer_the_stemmer_reproduces() -> None:
    assert f"tokenize='{FTS5_TOKENIZER}'" in store._SCHEMA


@pytest.mark.parametrize(("one", "other"), _SAME)
def test_forms_of_one_word_meet_in_the_stemmer_and_in_the_index(one: str, other: str) -> None:
    assert stem(one) == stem(other)
    assert _fts5_matches(one, other)


@pytest.mark.parametrize(("one", "other"), _APART)
def test_different_words_stay_apart_in_the_stemmer_and_in_the_index(one: str, other: str) -> None:
    assert stem(one) != stem(other)
    assert not _fts5_matches(one, other)


def test_code_names_are_kept_as_written() -> None:
    assert stem("wait_for") == "wait_for"
    assert stem("re.search") == "re.search"
