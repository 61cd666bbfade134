"""A citation written just before the answer's last words moves to the sentence's end."""

from __future__ import annotations

import pytest

from engine.sourcing.marker_place import markers_at_sentence_end


@pytest.mark.parametrize(
    ("written", "placed"),
    [
        (
            "The default start method on Unix is [1, 2] fork.",
            "The default start method on Unix is fork [1, 2].",
        ),
        (
            "The function that does it is [1] itertools.zip_longest.",
            "The function that does it is itertools.zip_longest [1].",
        ),
        ("It is [3] a pyvenv.cfg file. It lives in the root [3].", None),
        ("The default is 0 [1]. It is [2] unbounded!", None),
    ],
)
def test_an_early_marker_moves_after_the_last_words(written: str, placed: str | None) -> None:
    expected = placed
    if expected is None:
        expected = written.replace("is [3] a pyvenv.cfg file", "is a pyvenv.cfg file [3]")
        expected = expected.replace("is [2] unbounded!", "is unbounded [2]!")
    assert markers_at_sentence_end(written) == expected


@pytest.mark.parametrize(
    "written",
    [
        "The default maxsize is 0 [1].",
        "See [1] for how the queue, its workers and the event loop interact.",
        "Queues [1] and locks [2] differ.",
        "The answer is [1] spread over more than three words here.",
        "The value is [1][2] 40.",
    ],
)
def test_a_marker_elsewhere_stays(written: str) -> None:
    assert markers_at_sentence_end(written) == written


def test_the_quick_answer_is_placed_so() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from engine.quick.answer import finished_answer

    results = ToolMessage(
        content=(
            "Search results for start method\n\n[1] multiprocessing — Contexts\n"
            "Document: multiprocessing.html\nThe default start method on Unix is fork."
        ),
        tool_call_id="call-1",
    )
    reply = AIMessage(content="The default start method on Unix is [1] fork.")

    finished = finished_answer(reply, [HumanMessage(content="Default start method?"), results])

    assert str(finished.content).startswith("The default start method on Unix is fork [1].")
