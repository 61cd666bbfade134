"""Content words, their stems, and the engine's own citation marker."""

from __future__ import annotations

from engine.text.markers import NUMBERED_MARKER_RE, SENTENCE_WITH_MARKERS_RE, cite_sentence
from engine.text.words import content_words, stemmed_words


def test_content_words_drop_function_words_and_split_dotted_names() -> None:
    words = content_words("The functools.lru_cache decorator is given a maxsize.")
    assert words == {
        "functools.lru_cache",
        "functools",
        "lru_cache",
        "decorator",
        "given",
        "maxsize",
    }


def test_stemmed_words_meet_across_inflections() -> None:
    assert stemmed_words("Tasks are cancelled.") == stemmed_words("cancelling a task")


def test_a_marker_goes_before_the_final_stop_or_at_the_end() -> None:
    assert cite_sentence("Queues are FIFO.  ", 2) == "Queues are FIFO [2]."
    assert cite_sentence("Queues are FIFO", 3) == "Queues are FIFO [3]"


def test_a_sentence_keeps_the_markers_written_after_its_stop() -> None:
    text = "Queues are FIFO. [1, 2] Locks are fair.[3–4] Done"
    assert SENTENCE_WITH_MARKERS_RE.findall(text)[:3] == [
        "Queues are FIFO. [1, 2]",
        " Locks are fair.[3–4]",
        " Done",
    ]
    assert [m.group(1) for m in NUMBERED_MARKER_RE.finditer(text)] == ["1, 2", "3–4"]
