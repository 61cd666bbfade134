"""A quick answer whose only supported sentences are about something else is not verified.

Recorded on the local 1.5B (tests/fixtures/transcripts/quick_off_corpus.jsonl): asked who won
the 1998 World Cup over the Python documentation, it answered from memory, then described a
passage ("This can be seen in passage [4], which describes the synchronization between
processes ..."), true of the passage and no answer.
"""

from __future__ import annotations

from engine.events import ClaimSupport
from engine.nodes.verify import OFF_QUESTION_BANNER, answers_the_question, unverified_banner

QUESTION = "Who won the 1998 FIFA World Cup final?"


def _claim(text: str, status: str = "supported", action: str = "kept") -> ClaimSupport:
    return ClaimSupport(text=text, status=status, action=action, numbers=[1])


def test_a_supported_sentence_about_another_subject_answers_nothing() -> None:
    claims = [
        _claim("The 1998 FIFA World Cup final was won by Brazil.", status="unsupported"),
        _claim(
            "This can be seen in passage [1], which describes the synchronization between "
            "processes using a lock."
        ),
    ]

    assert not answers_the_question(claims, QUESTION)


def test_a_supported_sentence_sharing_the_question_s_words_answers_it() -> None:
    claims = [_claim("France won the 1998 final [1]."), _claim("A lock serialises output [2].")]

    assert answers_the_question(claims, QUESTION)


def test_a_removed_sentence_and_the_marker_s_number_do_not_count() -> None:
    question = "What does level 1 of the cup mean?"
    removed = _claim("Level 1 of the cup means the first round [1].", action="removed")
    # "[1]" is a citation, not the question's "1".
    marker_only = _claim("This passage describes a lock [1].")

    assert not answers_the_question([removed, marker_only], question)
    assert answers_the_question([_claim("Level 1 is the first round [1].")], question)


def test_no_claims_or_no_question_words_leave_the_verdict_to_the_other_checks() -> None:
    assert answers_the_question([], QUESTION)
    assert answers_the_question([_claim("It is 128 [1].")], "Why?")


def test_the_reason_has_its_own_banner() -> None:
    assert unverified_banner("no_answering_claims") == OFF_QUESTION_BANNER
