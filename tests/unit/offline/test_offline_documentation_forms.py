"""Forms that documentation written in Markdown uses and the offline model must read: a dash
inside a sentence, prose around code examples, entries headed `name (Type)`, and the names
such pages give (package names, a name introduced by the kind of thing it is)."""

from __future__ import annotations

from engine.models.offline.extract import best_quotes, candidates_from
from engine.models.offline.facts import CONSEQUENCE, NAME, fact_kinds, states
from engine.models.offline.passages import labelled_sentences
from engine.models.offline.sources import Source
from engine.models.offline.text import quotable


def _quotes(passage: str) -> list[str]:
    return [c.text for c in candidates_from([Source("page.md", "Page", False, [passage])])]


def test_a_dash_between_clauses_is_part_of_the_sentence() -> None:
    passage = (
        "Rotating by copying has a small chance of dropping records between the copy and "
        "the cut - the cut may happen after more records were written. Use the reopen "
        "signal instead."
    )
    assert (
        "Rotating by copying has a small chance of dropping records between the copy and the "
        "cut - the cut may happen after more records were written."
    ) in _quotes(passage)
    assert quotable("This gives a 4x speed-up in batch mode - even though it does more work.")


def test_a_list_of_short_lower_case_items_is_still_a_list() -> None:
    passage = "The paths are: - cafile - resolved path to cafile - capath - resolved path to capath"
    texts = [s.text for s in labelled_sentences(passage)]
    assert not any("cafile - resolved" in text for text in texts)
    assert not quotable("The result is now - startTime in milliseconds for the caller.")


def test_what_can_happen_asks_for_a_consequence_not_for_the_option_it_names() -> None:
    question = "What can happen to records when the copyover option of the rotator is used?"
    assert fact_kinds(question) == {CONSEQUENCE}
    assert fact_kinds("What happens when the retry option is set?") == {CONSEQUENCE}
    assert NAME in fact_kinds("Which option retries a failed write?")


def test_every_sentence_around_a_code_example_is_quoted() -> None:
    passage = (
        "The mkdir option may be set to create the folder before the file is opened. js const "
        "sink = open({ target: 'file', mkdir: true }) start(sink) By default, the file sink "
        "appends to the file when it already exists. The append option may be set to false "
        "to truncate it. store.open is implemented on the fast-writer module."
    )
    quotes = _quotes(passage)
    assert "By default, the file sink appends to the file when it already exists." in quotes
    assert "The append option may be set to false to truncate it." in quotes
    assert "store.open is implemented on the fast-writer module." in quotes


def test_a_statement_before_its_code_example_is_quoted_but_a_pointer_is_not() -> None:
    stated = (
        "Since version 6, consecutive string parameters are no longer joined into the "
        "message: js log.info('a', 'b') // b is missing"
    )
    pointer = "You can see how this works in the following snippet: js log.info('a', 'b')"
    assert (
        "Since version 6, consecutive string parameters are no longer joined into the message."
    ) in _quotes(stated)
    assert _quotes(pointer) == []


def test_a_lead_in_that_names_what_to_use_is_a_statement() -> None:
    passage = (
        "The first string is lost. To overcome this, the keepFirst hook can be used: js "
        "const log = create({ hooks: { keepFirst (args) { return args } } })"
    )
    assert "To overcome this, the keepFirst hook can be used." in _quotes(passage)
    assert _quotes("The options are as follows: js const log = create({ level: 'info' })") == []


def test_a_name_with_its_type_in_parentheses_heads_its_entry() -> None:
    passage = (
        "## recordKey (String)\n\nDefault: 'text' The key under which the record's text is "
        "written.\n\n## mask (Array | Object):\n\nIf an object is supplied: * paths (array): "
        "Required. The paths to mask. * censor (String|Function): Optional. The value written "
        "instead. Default: '[Masked]' * remove (Boolean): Optional. Default: false"
    )
    quotes = _quotes(passage)
    assert "recordKey: Default: 'text'." in quotes
    assert "censor: Default: '[Masked]'." in quotes
    found = labelled_sentences(passage)
    assert any(s.label == "censor" and s.owner == "mask" and s.entry for s in found)
    # A heading in words with a remark in parentheses is a section, not an entry.
    topic = labelled_sentences("## Log rotation (advanced)\n\nRotate the files every day.")
    assert topic[0].entry is False


def test_a_sentence_that_points_back_is_read_with_the_one_before_it() -> None:
    passage = (
        "When a record carries its own text and a message is given too, the record's text is "
        "lost. To overcome this, the keepFirst hook can be used. Hooks run in the order "
        "they were added to the logger."
    )
    question = "Which hook stops the record's text from being lost when a message is given?"
    quotes = best_quotes([Source("page.md", "Page", False, [passage])], question, limit=1)
    assert quotes[0].text == "To overcome this, the keepFirst hook can be used."


def test_a_plain_word_called_a_function_and_a_package_name_are_names() -> None:
    function_q = "Which function of the relay object is called after a record is written?"
    assert states(
        NAME, "The relay object must have a post function, called after writing.", function_q
    )
    assert not states(NAME, "The exported function can also be async.", function_q)
    library_q = "Which library is the file sink built on?"
    assert states(NAME, "The file sink is built on quick-writer.", library_q)
    assert NAME in fact_kinds(library_q)
