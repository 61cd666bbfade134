"""Forms of HTML reference pages the offline model must read: a question that asks what comes
back under a condition, whose condition names a quantity it does not ask for; a statement whose
colon introduces the example it is about; a release and its date joined by a dash."""

from __future__ import annotations

from engine.models.offline.extract import best_quotes, candidates_from
from engine.models.offline.facts import CONSEQUENCE, fact_kinds
from engine.models.offline.sources import Source
from engine.models.offline.text import quotable


def _quotes(passage: str) -> list[str]:
    return [c.text for c in candidates_from([Source("page.html", "Page", False, [passage])])]


def test_what_is_returned_under_a_condition_asks_for_a_consequence_not_a_number() -> None:
    question = "What is returned when a write would grow the archive beyond its maximum size?"
    assert fact_kinds(question) == frozenset({CONSEQUENCE})
    assert fact_kinds("What does the loader return if the file is missing?") == frozenset(
        {CONSEQUENCE}
    )
    # A quantity asked for outside the condition is still a number.
    assert "number" in fact_kinds("What is the maximum size of an archive?")
    passage = (
        "The maximum size of an archive is 4096 blocks. The MAX_BLOCKS setting, which is "
        "normally 2048, is the maximum number of blocks in a single archive. A write that "
        "would grow the archive larger than this will return ARCHIVE_FULL. Each block holds "
        "one record."
    )
    quotes = best_quotes([Source("limits.html", "Limits", False, [passage])], question, limit=1)
    assert quotes[0].text == (
        "A write that would grow the archive larger than this will return ARCHIVE_FULL."
    )


def test_the_example_a_statements_colon_introduces_is_what_it_is_about() -> None:
    passage = (
        "The embedded build leaves out the parts of the library that need a disk. Calling "
        "them in the embedded build raises a LookupError, because the export is missing: js "
        "const store = require('store') store.openFile('./data') // LookupError: "
        "store.openFile is not a function The following calls work in both builds: | Call | "
        "Note | | --- | --- | | store.get() | Reads a key. |"
    )
    question = "What happens when store.openFile is called in the embedded build?"
    quotes = best_quotes([Source("embedded.md", "Embedded", False, [passage])], question, limit=1)
    assert quotes[0].text == (
        "Calling them in the embedded build raises a LookupError, because the export is missing."
    )


def test_a_release_and_its_date_joined_by_a_dash_are_prose() -> None:
    assert quotable(
        "In old releases of the server (before version 2.4.10 - 2011-06-02) a reload would "
        "drop every open connection."
    )
    # A dash between numbers is still arithmetic, and a release before a number no date.
    assert not quotable("The elapsed time is written as end - 2011 in every one of the logs.")
    assert not quotable("Subtract them as 2.4 - 10 to find how many of the days are left.")


def test_a_release_the_question_names_is_a_word_of_the_match() -> None:
    passage = (
        "The SERVER_DEFAULT_BLOCK_SIZE build option can be used to change the default block "
        "size given to new archives. For many years the default block size was 512 bytes, "
        "but beginning with release 2.14.0 (2019-03-29), the default block size grew to 8192. "
        "The default block size suits most archives."
    )
    question = "What is the default block size of a new archive since release 2.14.0?"
    quotes = best_quotes([Source("blocks.html", "Blocks", False, [passage])], question, limit=1)
    assert "8192" in quotes[0].text


def test_a_sentence_about_the_parameter_is_read_with_the_one_that_names_it() -> None:
    passage = (
        "The loader reads its settings once at start. loader.load(paths) reads the files, "
        "leaving any it cannot parse in the loader.skipped list. The parameter is optional "
        "and defaults to the current directory. Settings are merged in the order given."
    )
    question = "What does loader.load() read when no paths are passed to it?"
    quotes = best_quotes([Source("loader.md", "Loader", False, [passage])], question, limit=2)
    assert "The parameter is optional and defaults to the current directory." in [
        quote.text for quote in quotes
    ]


def test_a_definition_list_term_with_its_type_heads_the_description_after_it() -> None:
    passage = (
        "- `listen_port` (`integer`)\n- Determines the port the daemon listens on. The default "
        "is typically 8125, but a packager may change it.\n- `log_format` (`enum`)\n- Sets the "
        "format of each log line. The default is plain."
    )
    quotes = _quotes(passage)
    assert "listen_port: The default is typically 8125, but a packager may change it." in quotes
    assert "log_format: The default is plain." in quotes


def test_a_semicolon_before_a_number_and_words_is_prose() -> None:
    assert quotable("The TCP port the daemon listens on; 8125 by default.")
    assert not quotable("Run the loader first; 2 = the number of passes it makes in all.")


def test_a_product_name_in_mixed_case_need_not_be_said_by_the_sentence() -> None:
    passage = (
        "- `listen_port` (`integer`)\n- The TCP port the daemon listens on; 8125 by default. "
        "This parameter can only be set at start.\n- `max_clients` (`integer`)\n- Determines "
        "how many clients StatsQL serves at once. The default is 10 clients."
    )
    question = "On which TCP port does the StatsQL daemon listen by default?"
    quotes = best_quotes([Source("config.html", "Settings", False, [passage])], question, limit=1)
    assert quotes[0].text.endswith("The TCP port the daemon listens on; 8125 by default.")


def test_a_short_sentence_that_names_its_entry_is_quoted_under_it() -> None:
    passage = (
        "- *`engine`*\n- The name of the storage engine to be used. Choices are heap, column, "
        "or user-installed engines like ledger. The default engine is heap.\n- *`owner`*\n- "
        "The role that owns the new table."
    )
    assert "engine: The default engine is heap." in _quotes(passage)
