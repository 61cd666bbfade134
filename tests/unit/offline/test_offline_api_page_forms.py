"""Forms of Markdown API reference pages the offline model must read once their bold and code
marks are gone: options headed by a name and its plain types, list items headed by a code name
and a colon, a short entry text before its example, table rows keyed by a version, reference
links run into the paragraph after them; and the names and versions such pages write (a method
named by its path, a release line `8.x`)."""

from __future__ import annotations

from engine.models.offline.extract import best_quotes, candidates_from
from engine.models.offline.facts import NAME, VERSION, fact_factor, fact_kinds, states
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.sources import Source


def _quotes(passage: str) -> list[str]:
    return [c.text for c in candidates_from([Source("page.md", "Page", False, [passage])])]


def test_an_option_headed_by_its_plain_types_labels_its_default_and_description() -> None:
    passage = (
        "* bodyTimeout number | null (optional) - Default: 300e3 - The timeout after which a "
        "request will time out, in milliseconds. * maxConcurrentStreams: number - Default: 100. "
        "Dictates the maximum number of concurrent streams for a single session. * url URL | "
        "string - Should only include the protocol, hostname, and port."
    )
    quotes = _quotes(passage)
    assert "bodyTimeout: Default: 300e3." in quotes
    assert "maxConcurrentStreams: Default: 100." in quotes
    labels = {s.label for s in labelled_sentences(passage)}
    assert {"bodyTimeout", "maxConcurrentStreams", "url"} <= labels
    # Prose of two words is no head: "The timeout" is not an option called "the".
    assert not any(label.startswith(("The", "Default")) for label in labels)


def test_a_list_item_headed_by_a_code_name_and_a_colon_is_that_names_entry() -> None:
    passage = (
        "These are the following * log.timeFunctions.epochTime: Milliseconds since Unix epoch "
        "(Default) * log.timeFunctions.unixTime: Seconds since Unix epoch * Note: Not a name."
    )
    quotes = _quotes(passage)
    assert "log.timeFunctions.unixTime: Seconds since Unix epoch." in quotes
    assert not any(s.label == "Note" for s in labelled_sentences(passage))


def test_a_short_entry_text_before_its_code_example_is_quoted_under_the_entry() -> None:
    passage = (
        "## getSetCookies(headers)\n\nParses all Set-Cookie headers. js import { getSetCookies } "
        "from 'lib' console.log(getSetCookies(headers)) // [ { name: 'a' } ]"
    )
    assert "getSetCookies(headers): Parses all Set-Cookie headers." in _quotes(passage)
    # Outside an entry a sentence that short is still too short to quote.
    assert _quotes("Parses all headers. js import { x } from 'lib' x(headers)") == []


def test_a_table_row_keyed_by_a_version_keeps_its_key() -> None:
    passage = (
        "| Version | Bundled in Node.js | End of Life |\n|---|---|---|\n"
        "| 7.x | 24.x | 2027-04-30 |\n| v18.x | 5.x | 2024-04-30 |"
    )
    quotes = _quotes(passage)
    assert "7.x: Bundled in Node.js 24.x, End of Life 2027-04-30." in quotes
    assert "v18.x: Bundled in Node.js 5.x, End of Life 2024-04-30." in quotes


def test_reference_links_that_open_a_paragraph_are_not_part_of_its_sentence() -> None:
    passage = (
        "* https://www.example.org/rfc/rfc9110#field.content-encoding The client limits the "
        "number of encoding layers in a response to 5 to prevent resource exhaustion."
    )
    assert (
        "The client limits the number of encoding layers in a response to 5 to prevent "
        "resource exhaustion."
    ) in _quotes(passage)


def test_a_method_named_by_its_path_answers_which_method() -> None:
    question = "Which method opens the connection before any request is queued?"
    assert states(NAME, "Consider using client.connect to connect to the origin early.", question)
    assert states(NAME, "It uses console.error for any fatal level logs.", "Which console method?")
    # Which function: a path ending in camel case is a function, a plain one may be data.
    function_q = "Which function gives the time in seconds?"
    assert states(NAME, "Use log.timeFunctions.unixTime for seconds.", function_q)
    assert not states(NAME, "These names are listed in sys.builtin_module_names.", function_q)
    assert not states(NAME, "The settings are read from package.json first.", question)


def test_a_release_line_is_a_version_and_a_plural_asks_for_versions() -> None:
    question = "Which Node.js versions does the 9.x release line support?"
    assert fact_kinds(question) == {VERSION}
    assert states(VERSION, "To stay on Node.js 14, install the latest 8.x release.", question)
    assert not states(VERSION, "The latest release is supported.", question)


def test_the_table_row_the_question_names_counts_before_its_neighbours() -> None:
    question = "Which Node.js versions does the 9.x release line support?"
    kinds = fact_kinds(question)
    named = fact_factor(kinds, "9.x: Release Date 2024-04-26, Node.js 18, 20, 22.", question)
    other = fact_factor(kinds, "8.x: Release Date 2022-06-01, Node.js 14, 16, 18.", question)
    assert named == 2 * other


def test_table_rows_without_a_closing_pipe_are_rows() -> None:
    passage = (
        "Codes the client reports: | Code | Definition | | --- | --- | | E_OPTION | Invalid "
        "option. | | E_NETWORK | Network-related issue. | E_TOO_MANY_HOPS | The request was "
        "forwarded too many times. | E_GONE | The resource is gone. | | E_LAST | Last one."
    )
    rows = {s.label: s.text for s in labelled_sentences(passage)}
    assert rows["E_NETWORK"] == "Definition Network-related issue."
    assert rows["E_TOO_MANY_HOPS"] == "Definition The request was forwarded too many times."
    assert rows["E_GONE"] == "Definition The resource is gone."
    assert rows["E_LAST"] == "Definition Last one."
    # A closed last row before prose still ends at its pipe.
    closed = labelled_sentences("| Key | Value |\n|---|---|\n| a1 | One |\n| b2 | Two | Then it.")
    assert [(s.label, s.text) for s in closed][-2:] == [("b2", "Value Two."), ("", "Then it.")]


def test_options_whose_comments_mark_the_default_state_it() -> None:
    passage = (
        "These are the options. js { // retries is how many times a failed call is tried "
        "again. // If set to 0, a failure is final. retries: 3, // default // wait is the "
        "number of milliseconds before a call gives up. wait: 500, // default is 0 (no limit) "
        "// format is the shape of the reply format: 'json', // default }"
    )
    quotes = _quotes(passage)
    assert "retries: Default: 3." in quotes
    assert "wait: Default: 0 (no limit)." in quotes
    assert "format: Default: 'json'." in quotes
    question = "How many times is a failed call tried again by default?"
    best = best_quotes([Source("client.md", "Client", False, [passage])], question, limit=1)
    assert best[0].text == "retries: Default: 3."
