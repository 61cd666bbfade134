"""The offline model reads reference pages as their authors laid them out: entries, their
parameters and options, tables, version notes, and prose run together with code examples."""

from __future__ import annotations

from engine.models.offline import text as offline_text
from engine.models.offline.extract import best_quotes, candidates_from, quoted_text
from engine.models.offline.passages import clean_markup, labelled_sentences
from engine.models.offline.sources import Source
from engine.models.offline.text import quotable


def _quotes(passage: str) -> list[str]:
    return [c.text for c in candidates_from([Source("page.html", "Page", False, [passage])])]


def test_a_long_signature_heads_its_entry() -> None:
    passage = (
        "- *coroutine* asyncio.open_connection(*host=None*, *port=None*, *, *limit=None*, "
        "*ssl=None*, *family=0*, *proto=0*, *flags=0*, *sock=None*, *local_addr=None*, "
        "*server_hostname=None*, *ssl_handshake_timeout=None*, *ssl_shutdown_timeout=None*, "
        "*happy_eyeballs_delay=None*, *interleave=None*) - Establish a network "
        "connection and return a pair of (reader, writer) objects. By default the *limit* is "
        "set to 64 KiB."
    )
    assert "asyncio.open_connection(): By default the limit is set to 64 KiB." in _quotes(passage)


def test_parameters_label_their_own_description_within_their_entry() -> None:
    passage = (
        "- sqlite3.connect(*database*, *cached_statements=128*) - Open a connection to an SQLite "
        "database. - Parameters: - database (*path-like object*) – The path to the database "
        "file to be opened. - cached_statements (*int*) – The number of statements that sqlite3 "
        "should internally cache for this connection. By default, 128 statements."
    )
    found = labelled_sentences(passage)
    last = found[-1]
    assert (last.label, last.text) == ("cached_statements", "By default, 128 statements.")
    assert last.owner == "sqlite3.connect(database, cached_statements=128)"
    assert "cached_statements: By default, 128 statements." in _quotes(passage)


def test_the_entry_labels_its_text_again_after_its_parameters() -> None:
    passage = (
        "## `path.basename(path[, suffix])`\n\n"
        "* `path` {string} * `suffix` {string} An optional suffix to remove * Returns: {string} "
        "The `path.basename()` method returns the last portion of a `path`."
    )
    last = labelled_sentences(passage)[-1]
    assert last.label == "path.basename(path[, suffix])"
    assert last.text.startswith("The path.basename() method returns")


def test_command_line_options_head_their_descriptions() -> None:
    passage = (
        "- --sort-keys - Sort the output of dictionaries alphabetically by key. New in version "
        "3.5. - --json-lines - Parse every input line as separate JSON object. New in version "
        "3.8. - -p, --pattern pattern - Pattern to match test files (test*.py default) - -t, "
        "--top-level-directory directory - Top level directory of project"
    )
    quotes = _quotes(passage)
    assert "--json-lines: New in version 3.8." in quotes
    assert "--sort-keys: New in version 3.5." in quotes
    # A description without a full stop ends where the next option starts.
    assert "-p, --pattern: Pattern to match test files (test*.py default)." in quotes


def test_emphasis_around_a_file_pattern_keeps_the_pattern_whole() -> None:
    signature = "discover(*start_dir*, *pattern='test*.py'*, *top_level_dir=None*)"
    assert clean_markup(signature) == "discover(start_dir, pattern='test*.py', top_level_dir=None)"


def test_products_of_numbers_and_file_patterns_read_as_prose() -> None:
    assert quotable("It defaults to 80*8 characters.", short_ok=True)
    assert quotable("Only the files that match *.txt are read by the loader.")
    assert not quotable("Multiply the two values with a * b inside the loop body.")


def test_version_notes_that_run_together_are_cut_apart() -> None:
    passage = (
        "Once an environment has been created, you may wish to activate it. Changed in version "
        "3.9: Add --upgrade-deps option to upgrade pip + setuptools to the latest on PyPI "
        "Changed in version 3.4: Installs pip by default"
    )
    assert (
        "Changed in version 3.9: Add --upgrade-deps option to upgrade pip + setuptools to the "
        "latest on PyPI." in _quotes(passage)
    )


def test_table_rows_are_sentences_under_their_first_cell() -> None:
    passage = (
        "The numeric values of logging levels are given in the following table. | Level | "
        "Numeric value | |---|---| | CRITICAL | 50 | | ERROR | 40 | | WARNING | 30 | These are "
        "primarily of interest if you want to define your own levels."
    )
    quotes = _quotes(passage)
    assert "ERROR: Numeric value 40." in quotes
    assert quotes[0].startswith("The numeric values of logging levels")
    assert quotes[-1].startswith("These are primarily of interest")
    source = Source("logging.html", "logging", False, [passage])
    chosen = best_quotes([source], "What is the numeric value of the ERROR logging level?", limit=1)
    assert chosen[0].text == "ERROR: Numeric value 40."


def test_a_list_of_numbers_with_a_zero_is_a_value_not_citation_marks() -> None:
    passage = "## `os.loadavg()`\n\nOn Windows, the return value is always [0, 0, 0]."
    assert _quotes(passage) == ["os.loadavg(): On Windows, the return value is always `[0, 0, 0]`."]
    assert not quotable("Tasks are cancelled [1, 2] by the loop when it is asked to.")


def test_prose_run_together_with_code_is_quoted_without_the_code() -> None:
    before = (
        "If an EventEmitter has no listener for the 'error' event, the error is thrown and the "
        "Node.js process exits. mjs import { EventEmitter } from 'node:events'; const e = 1"
    )
    after = (
        "js path.basename('C:\\\\foo.HTML', '.html'); // Returns: 'foo.HTML' A TypeError is "
        "thrown if path is not a string."
    )
    example = (
        "If it's just one module you want to test interactively, use importlib.reload(), e.g. "
        "import importlib; importlib.reload(modulename) ."
    )
    assert offline_text.prose_part(before) == (
        "If an EventEmitter has no listener for the 'error' event, the error is thrown and the "
        "Node.js process exits."
    )
    assert offline_text.prose_part(after) == "A TypeError is thrown if path is not a string."
    assert offline_text.prose_part(example) == (
        "If it's just one module you want to test interactively, use importlib.reload()."
    )
    assert _quotes(after) == ["A TypeError is thrown if path is not a string."]


def test_underscore_emphasis_is_quoted_as_the_source_has_it() -> None:
    # The quote is checked against the source text, where `_not_` stands as written.
    sentence = labelled_sentences(
        "If an EventEmitter does _not_ have at least one listener registered for the 'error' "
        "event, the error is thrown."
    )[0]
    assert quoted_text(sentence) == (
        "If an EventEmitter does _not_ have at least one listener registered for the 'error' "
        "event, the error is thrown."
    )


def test_a_lead_in_that_states_a_number_is_quoted_before_its_list() -> None:
    passage = (
        "There are ten different hooks that you can use in Request/Reply *(in order of\n"
        "execution)*:\n\n### onRequest\nThe first hook of the lifecycle runs on every request."
    )
    assert (
        "There are ten different hooks that you can use in Request/Reply "
        "(in order of execution)." in _quotes(passage)
    )
    # A lead-in that counts nothing says nothing until its list does.
    assert not any("follows" in q for q in _quotes("The logger can be used as follows:\n\n- a"))
    assert not any(
        "following" in q
        for q in _quotes("You can set one of the following values for the option:\n\n- a")
    )


def test_emphasis_over_a_wrapped_line_is_dropped() -> None:
    assert clean_markup("use in it *(in order of\nexecution)*:") == (
        "use in it (in order of\nexecution):"
    )
    assert clean_markup("a **strong\nword** here") == "a strong\nword here"


def test_a_star_between_the_words_of_a_formula_multiplies_and_does_not_start_an_item() -> None:
    passage = (
        "vacuum threshold = vacuum base threshold + vacuum scale factor * number of tuples "
        "where the vacuum base threshold is autovacuum_vacuum_threshold. "
        "These are the following * log.timeFunctions.unixTime: Seconds since Unix epoch."
    )

    texts = [sentence.text for sentence in labelled_sentences(passage)]

    assert texts[0].startswith("vacuum threshold = vacuum base threshold + vacuum scale factor *")
    assert texts[0].endswith("is autovacuum_vacuum_threshold.")
    # A code name after a star still opens an item, and names what it says.
    assert "Seconds since Unix epoch." in texts
    labels = {sentence.text: sentence.label for sentence in labelled_sentences(passage)}
    assert labels["Seconds since Unix epoch."] == "log.timeFunctions.unixTime"


def test_an_option_head_in_synopsis_notation_labels_the_description_after_it() -> None:
    passage = (
        "- -a --all - Vacuum all databases. - [-d] *dbname* [--dbname=]*dbname* - Specifies the "
        "name of the database to be cleaned. - --index-version \\<n> - Write the index out in "
        "the named on-disk format version."
    )

    labels = {sentence.text: sentence.label for sentence in labelled_sentences(passage)}

    assert labels["Vacuum all databases."] == "-a, --all"
    assert labels["Specifies the name of the database to be cleaned."] == "-d, --dbname"
    assert labels["Write the index out in the named on-disk format version."] == "--index-version"


def test_a_list_of_lower_case_items_after_stars_stays_a_list() -> None:
    passage = (
        "Caveats: * the cache is not shared between processes * restart the server to clear it."
    )

    texts = [sentence.text for sentence in labelled_sentences(passage)]

    assert "restart the server to clear it." in texts


def test_an_option_with_its_description_on_one_line_is_no_head_of_the_next_item() -> None:
    passage = (
        "Flags: - -q, --quiet Suppress all output. - -v Show more detail. - Runs the build in "
        "the current directory."
    )

    labels = {sentence.text: sentence.label for sentence in labelled_sentences(passage)}

    assert labels["Runs the build in the current directory."] != "-v"
