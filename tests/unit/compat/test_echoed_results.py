"""Search results a model copies into its answer are taken back out (seen on a 1.5B model)."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from engine.quick.answer import COPIED_ANSWER, QUOTED_INSTEAD, finished_answer
from engine.sourcing.echo import without_echo
from engine.sourcing.source_numbers import SourceCatalog

JSON_TITLE = "json — JSON encoder and decoder — Basic Usage"
QUEUE_TITLE = "queue — A synchronized queue class — Queue Objects"
ANSWER = (
    "If *ensure_ascii* is true (the default), the output is guaranteed to have all incoming "
    "non-ASCII characters escaped [1]. If *ensure_ascii* is false, these characters will be "
    "output as-is [1]."
)
QUEUE_PASSAGE = "Queue objects provide the public methods described below [2]."
JSON_PAGE = ANSWER.replace(" [1]", "")
QUEUE_PAGE = QUEUE_PASSAGE.replace(" [2]", "")


def _catalog() -> SourceCatalog:
    catalog = SourceCatalog({})
    for title, locator in ((JSON_TITLE, "json.html"), (QUEUE_TITLE, "queue.html")):
        catalog.number_for(title, locator)
    return catalog


def test_a_copied_result_block_and_a_repeated_paragraph_are_dropped() -> None:
    copied = f"{ANSWER}\n\n{ANSWER}\n\n[2] {QUEUE_TITLE}\n{QUEUE_PASSAGE}\n"

    assert without_echo(copied, _catalog()) == ANSWER + "\n"


def test_a_repeat_cut_short_by_the_token_cap_is_dropped_too() -> None:
    cut_short = ANSWER[: len(ANSWER) - 30]
    copied = f"{ANSWER}\n\n{cut_short}"

    assert without_echo(copied, _catalog()) == ANSWER + "\n"


def test_two_paragraphs_opening_alike_are_both_kept() -> None:
    # Only a repeat of the whole earlier paragraph's opening, to where it was cut, is a copy.
    second = ANSWER[:60] + " and nothing else is escaped [1]."
    answer = f"{ANSWER}\n\n{second}"

    assert without_echo(answer, _catalog()) == answer


def test_a_result_block_headed_for_two_results_with_their_titles_mixed_is_dropped() -> None:
    # Seen on the local model: `[1, 2]` and half of each title, then a passage word for word.
    catalog = _catalog()
    catalog.passages[2] = QUEUE_PAGE + " Queue.qsize() returns the approximate size of the queue."
    mixed = "json — JSON encoder and decoder — Queue Objects"
    copied = f"{ANSWER}\n\n[1, 2] {mixed}\n{QUEUE_PAGE}\nQueue.qsize() returns the approximate"

    assert without_echo(copied, catalog) == ANSWER + "\n"


def test_a_header_for_several_results_over_the_answers_own_words_stays() -> None:
    catalog = _catalog()
    catalog.passages[2] = QUEUE_PAGE
    own = "[1, 2] Both pages agree\nThe encoder escapes every non-ASCII character unless told so."
    answer = f"{ANSWER}\n\n{own}"

    assert without_echo(answer, catalog) == answer


def test_the_references_section_stays() -> None:
    references = f"## References\n[1] {JSON_TITLE} — json.html\n"
    copied = f"{ANSWER}\n\n[2] {QUEUE_TITLE}\n{QUEUE_PASSAGE}\n\n{references}"

    assert without_echo(copied, _catalog()) == f"{ANSWER}\n\n{references}"


def test_an_answer_of_its_own_is_unchanged() -> None:
    references = f"## References\n[1] {JSON_TITLE} — json.html\n"
    answer = f"{ANSWER}\n\nIt applies to json.dump too [1].\n\n{references}"

    assert without_echo(answer, _catalog()) == answer


def test_a_bracketed_line_that_is_not_a_result_header_stays() -> None:
    answer = f"[1] is the page that says it.\n\n{ANSWER}"

    assert without_echo(answer, _catalog()) == answer


def test_an_answer_that_is_nothing_but_copies_becomes_the_best_sentences_quoted() -> None:
    results = ToolMessage(
        content=(
            f"Search results for ensure_ascii\n\n[1] {JSON_TITLE}\nDocument: json.html\n{JSON_PAGE}"
            f"\n\n[2] {QUEUE_TITLE}\nDocument: queue.html\n{QUEUE_PAGE}"
        ),
        tool_call_id="call-1",
    )
    reply = AIMessage(content=f"[1] {JSON_TITLE}\n{JSON_PAGE}\n\n[2] {QUEUE_TITLE}\n{QUEUE_PAGE}")

    finished = finished_answer(reply, [HumanMessage(content="What does ensure_ascii do?"), results])

    assert str(finished.content).startswith(QUOTED_INSTEAD)
    assert "non-ASCII characters escaped [1]." in str(finished.content)
    assert "[2]" not in str(finished.content).split("## References")[0]  # off the question
    assert "[1] json — JSON encoder and decoder — Basic Usage — json.html" in str(finished.content)


def test_copies_of_results_with_no_sentence_to_quote_are_called_so() -> None:
    results = ToolMessage(
        content=f"Search results for x\n\n[1] {JSON_TITLE}\nDocument: json.html\nshort",
        tool_call_id="call-1",
    )
    reply = AIMessage(content=f"[1] {JSON_TITLE}\nshort")

    finished = finished_answer(reply, [HumanMessage(content="What does ensure_ascii do?"), results])

    assert finished.content == COPIED_ANSWER


def test_a_header_line_run_into_a_sentence_loses_its_title_and_the_hanging_lead_in() -> None:
    # Seen on the local model over the httpd manual: "…this way: [1] mod_deflate - Apache …".
    catalog = _catalog()
    answer = f"{ANSWER} Thus you may call it this way: [1] {JSON_TITLE}\n"

    assert without_echo(answer, catalog) == ANSWER + "\n"


def test_a_lead_in_followed_by_its_list_stays() -> None:
    lead_in = "It escapes two kinds of characters: [1]\n\n- non-ASCII ones [1]"
    answer = f"{lead_in} {JSON_TITLE}\n- quotes [1]\n"

    assert without_echo(answer, _catalog()) == f"{lead_in}\n- quotes [1]\n"
