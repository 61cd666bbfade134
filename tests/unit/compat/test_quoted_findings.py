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


SETTINGS_LIST = (
    "These settings control the autovacuum feature. - autovacuum_vacuum_threshold (integer) - "
    "Specifies the minimum number of updated or deleted tuples needed to trigger a VACUUM in any "
    "one table. The default is 50 tuples. - autovacuum_vacuum_scale_factor (floating point) - "
    "Specifies a fraction of the table size to add to autovacuum_vacuum_threshold when deciding "
    "whether to trigger a VACUUM. The default is 0.2 (20% of table size)."
)


def test_a_sentence_of_a_settings_list_is_quoted_under_the_setting_it_describes() -> None:
    sentences = sentences_of(SETTINGS_LIST)

    assert sentences == [
        "These settings control the autovacuum feature.",
        "autovacuum_vacuum_threshold: Specifies the minimum number of updated or deleted tuples "
        "needed to trigger a VACUUM in any one table.",
        "autovacuum_vacuum_threshold: The default is 50 tuples.",
        # It names another setting, not its own: still quoted under its own.
        "autovacuum_vacuum_scale_factor: Specifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM.",
        "autovacuum_vacuum_scale_factor: The default is 0.2 (20% of table size).",
    ]


def test_a_quote_of_a_settings_list_names_the_setting_the_topic_asks_about() -> None:
    catalog = _catalog(("Automatic Vacuuming", "runtime-config-autovacuum.html", SETTINGS_LIST))

    quoted = quoted_findings("autovacuum_vacuum_scale_factor default", catalog, 1)

    assert quoted == "- autovacuum_vacuum_scale_factor: The default is 0.2 (20% of table size) [1]."


def test_a_sentence_that_names_its_entry_is_quoted_as_it_stands() -> None:
    passage = "- shared_buffers (integer) - Sets the amount of memory shared_buffers may use."

    assert sentences_of(passage) == ["Sets the amount of memory shared_buffers may use."]


def test_a_box_of_fields_is_not_quoted_and_an_example_in_parentheses_ends_no_sentence() -> None:
    passage = (
        "| Description: | Sets filename and format of log file | |---|---| | Syntax: | "
        "CustomLog file|pipe format | | Module: | mod_log_config | "
        "If it depends on other information than request headers (e.g. HTTP version), you "
        "have to set the Vary header to the value of the request."
    )

    assert sentences_of(passage) == [
        "If it depends on other information than request headers (e.g. HTTP version), you "
        "have to set the Vary header to the value of the request."
    ]


def test_a_sentence_cut_inside_its_parentheses_is_not_quoted() -> None:
    passage = (
        "Alternatively: NUMERIC(precision) selects a scale of 0 for the column. (The SQL "
        "standard requires a default scale of 0, i.e., coercion to integer precision. We find "
        "this a bit useless.) Numeric columns with a declared scale coerce input values."
    )

    assert sentences_of(passage) == [
        "Alternatively: NUMERIC(precision) selects a scale of 0 for the column."
    ]


def test_a_name_goes_only_on_its_entry_s_first_sentence_and_those_that_go_on_about_it() -> None:
    passage = (
        "Options: - --verbose - Print more output while the build runs. Exit status is 0 on "
        "success and 1 on any failure of the build. - mode (string) - Selects the model to load "
        "for the run. This setting can only be given once on the command line."
    )

    assert sentences_of(passage) == [
        "--verbose: Print more output while the build runs.",
        # The page's next paragraph, run into the last item of a flattened list.
        "Exit status is 0 on success and 1 on any failure of the build.",
        "mode: Selects the model to load for the run.",  # "model" does not name `mode`
        "mode: This setting can only be given once on the command line.",
    ]


def test_menu_words_are_no_entry_and_a_sentence_the_reader_changed_is_quoted_as_it_stands() -> None:
    menu = (
        "Home - Download - Documentation - Community PostgreSQL is a powerful, open source "
        "object-relational database system."
    )
    placeholder = (
        "- format(value) - Use the replacement field {0}, which is replaced by the first "
        "positional argument of the call."
    )

    assert sentences_of(menu) == [
        "Community PostgreSQL is a powerful, open source object-relational database system."
    ]
    # The page reader drops `{0}`: what it gives is not the page's words; the page's are quoted.
    assert sentences_of(placeholder) == [
        "Use the replacement field {0}, which is replaced by the first positional argument of "
        "the call."
    ]


def test_an_enumeration_in_a_sentence_is_no_parenthesis_left_open() -> None:
    passage = "The steps are: 1) stop the server, 2) copy the data directory to the new disk."

    assert sentences_of(passage) == [passage]


def test_a_page_title_a_passage_opens_with_is_never_a_quote() -> None:
    # The local search's passages open with their page's title as a sentence; ranked against
    # a track named after the page, that title won every quote, and every quote was then
    # dropped as naming nothing but its source.
    title = "mod_deflate - Apache HTTP Server Version 2.4"
    passage = (
        f"{title}. The mod_deflate module provides the DEFLATE output filter that allows "
        "output from your server to be compressed before being sent to the client."
    )
    catalog = _catalog((title, "mod_deflate.html", passage))

    quoted = quoted_findings("mod_deflate Apache HTTP Server", catalog, 3)

    assert quoted == (
        "- The mod_deflate module provides the DEFLATE output filter that allows output from "
        "your server to be compressed before being sent to the client [1]."
    )
