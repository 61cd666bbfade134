"""Quoted findings, as the quick path shows them when the model wrote no answer of its own.

The cases are the local 1.5B model's copies over the Apache httpd manual: the same fact quoted
twice from two pages, a third quote off the subject, and list items run together.
"""

from __future__ import annotations

from engine.sourcing.extractive import quoted_findings, sentences_of
from engine.sourcing.source_numbers import SourceCatalog

QUESTION = "Before which httpd version was the directive MaxRequestWorkers called MaxClients?"
EVENT = (
    "The event MPM handles connections asynchronously. "
    "MaxRequestWorkers was called MaxClients before version 2.3.13."
)
COMMON = "MaxRequestWorkers was called MaxClients prior to version 2.3.13. It limits workers."
ALIAS = (
    "Any number of slashes in the URL-path parameter matches any number of slashes in the "
    "requested URL-path of the directive."
)


def _catalog(*passages: tuple[str, str, str]) -> SourceCatalog:
    catalog = SourceCatalog({})
    for title, key, passage in passages:
        catalog.passages[catalog.number_for(title, key)] = passage
    return catalog


def test_one_fact_stated_by_two_pages_is_quoted_once_citing_both() -> None:
    catalog = _catalog(("event", "event.html", EVENT), ("mpm_common", "mpm_common.html", COMMON))

    quoted = quoted_findings(QUESTION, catalog, 3)

    assert quoted.count("2.3.13") == 1
    assert "MaxRequestWorkers was called MaxClients before version 2.3.13 [1, 2]." in quoted


def test_a_sentence_matching_the_question_far_worse_than_the_best_is_left_out() -> None:
    catalog = _catalog(("event", "event.html", EVENT), ("mod_alias", "mod_alias.html", ALIAS))

    quoted = quoted_findings(QUESTION, catalog, 3)

    assert "2.3.13 [1]." in quoted
    assert "slashes" not in quoted


def test_list_items_and_table_cells_run_together_are_sentences_of_their_own() -> None:
    passage = (
        "type can be one of: - Input - Store the byte count of the filter's input stream in "
        "the note. - Ratio - Store the compression ratio (output/input * 100) in the note. "
        "| This is the default, if the type argument is omitted by the configuration."
    )

    assert sentences_of(passage) == [
        "Store the byte count of the filter's input stream in the note.",
        "Store the compression ratio (output/input * 100) in the note.",
        "This is the default, if the type argument is omitted by the configuration.",
    ]
