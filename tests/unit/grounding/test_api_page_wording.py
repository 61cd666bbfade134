"""Claims about API pages that grounding once removed though their source states them.

Both came from the bundled local model answering over undici's documentation: "… is 5, as
stated in RFC 9110 [1]" was removed for a number its source writes as `rfc9110`, and every
claim about the limit for "its sources state the opposite", read from "to prevent".
"""

from __future__ import annotations

from engine.grounding.score import score_claim

LIMIT = (
    "* https://www.rfc-editor.org/rfc/rfc9110#field.content-encoding Undici limits the number "
    "of Content-Encoding layers in a response to 5 to prevent resource exhaustion attacks."
)


def test_a_number_written_onto_a_word_is_stated() -> None:
    claim = "undici accepts at most 5 Content-Encoding layers, as RFC 9110 describes [1]."
    assert score_claim(claim, [LIMIT]).status != "unsupported"
    needs = "undici needs Node.js v18 or a later release."
    assert score_claim("undici needs Node.js 18 or a later release.", [needs]).status == "supported"


def test_a_number_the_page_does_not_write_is_still_missing() -> None:
    needs = "undici needs Node.js v18 or a later release."
    verdict = score_claim("undici needs Node.js 20 or a later release.", [needs])
    assert verdict.status == "unsupported"
    assert verdict.reason == "its sources do not state 20"


def test_what_a_purpose_prevents_is_not_a_negation_of_the_clause() -> None:
    assert score_claim("Undici limits Content-Encoding layers to 5 [1].", [LIMIT]).status == (
        "supported"
    )


def test_a_claim_that_negates_the_limit_still_conflicts() -> None:
    verdict = score_claim("Undici does not limit the Content-Encoding layers [1].", [LIMIT])
    assert verdict.reason == "its sources state the opposite"
