"""A quick answer that cites a source where the fact asked for should be.

The bundled local model answered "Which undici version line is bundled in Node.js 24?" with
"The undici version line bundled in Node.js 24 is [7]." and "Which undici function adds the
WHATWG fetch classes to globalThis?" with a sentence ending "The results are from [1], [2],
and [3]."; kept, the first passed verification as an answer that names no version.
"""

from __future__ import annotations

from engine.quick.answer import QUOTED_BESIDE_MARKERS, QUOTED_FOR_MARKERS
from tests.unit.quick.test_uncited_answer import answer_to

QUESTION = "What must be true of the input to itertools.groupby?"


async def test_an_answer_that_is_only_a_marker_becomes_the_sources_sentences_quoted() -> None:
    answer = await answer_to(QUESTION, "The input to itertools.groupby must be [1].")

    assert "must be [1]" not in answer
    assert answer.startswith(QUOTED_FOR_MARKERS)
    assert "needs to already be sorted on the same key function [1]." in answer
    assert "match statement" not in answer


async def test_a_marker_in_place_of_the_fact_beside_other_sentences_brings_the_quotes() -> None:
    reply = (
        "The groupby function groups consecutive keys of the iterable [1]. "
        "What its input must be is [2]."
    )
    answer = await answer_to(QUESTION, reply)

    assert "must be is" not in answer
    assert answer.startswith("The groupby function groups consecutive keys of the iterable [1].")
    assert QUOTED_BESIDE_MARKERS in answer
    assert "needs to already be sorted" in answer.split(QUOTED_BESIDE_MARKERS, 1)[1]


async def test_a_sentence_listing_its_sources_leaves_no_commas_behind() -> None:
    reply = (
        "The iterable needs to already be sorted on the same key function [1]. "
        "The results are from [1], [2], and [3]."
    )
    answer = await answer_to(QUESTION, reply)

    assert "results are from" not in answer
    assert ",," not in answer
    assert answer.startswith("The iterable needs to already be sorted on the same key function")


async def test_an_answer_that_names_its_fact_and_lists_its_sources_gets_no_lead_in() -> None:
    # The local model's own words over undici's pages: the fact, then where it came from.
    reply = (
        "The input to groupby needs to already be sorted on the same key function. "
        "The results are from [1], [2], and [3]."
    )
    answer = await answer_to(QUESTION, reply)

    assert answer.startswith("The input to groupby needs to already be sorted")
    assert "results are from" not in answer
    assert QUOTED_BESIDE_MARKERS not in answer and QUOTED_FOR_MARKERS not in answer
