"""A sentence whose citation stands where its fact should be states nothing."""

from __future__ import annotations

import pytest

from engine.grounding.marker_as_fact import marker_stands_for_fact


@pytest.mark.parametrize(
    "sentence",
    [
        "The undici version line bundled in Node.js 24 is [7].",
        "The minimum Node.js version supported by undici 7.x is [1, 2, 3].",
        "The results are from [1], [2], and [3].",
        "The answer is: [3]",
        "- The default value is the [2].",
        "The method that opens the connection is [^1].",
    ],
)
def test_a_marker_in_the_place_of_the_object_is_one(sentence: str) -> None:
    assert marker_stands_for_fact(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The default is 128 [1].",
        "The default is 128, as described in [1].",
        "See [2].",
        "The function is `install()` [1, 2].",
        "It can be configured [1].",
        "The results are from the undici README.",
        "What its input is matters.",
    ],
)
def test_a_statement_that_cites_after_its_fact_is_not(sentence: str) -> None:
    assert not marker_stands_for_fact(sentence)


def test_grounding_marks_such_a_sentence_and_says_why() -> None:
    from engine.grounding.enforce import UNSUPPORTED_MARK
    from engine.grounding.marker_as_fact import MARKER_AS_FACT
    from tests.unit.grounding.test_ground_report import _ground

    report = (
        "# Caching\n\n"
        "lru_cache saves up to 128 of the most recent calls by default [1]. "
        "The default maxsize of the cache is [1].\n\n"
        "## Sources\n[1] functools — functools.html\n"
    )
    grounded = _ground(report, "strict")

    # A rule, so it marks: the page shares its words ("…variables from [1]." is a whole
    # sentence the same rule would take for one).
    assert f"maxsize of the cache is [1].{UNSUPPORTED_MARK}" in grounded.report
    assert "128 of the most recent calls by default [1]." in grounded.report
    (marked,) = [claim for claim in grounded.claims if claim.action == "marked"]
    assert marked.reason == MARKER_AS_FACT
    assert marked.sources == ["functools.html"]
    assert not grounded.removed


def test_a_sentence_that_only_lists_its_sources_leaves_out_no_fact() -> None:
    from engine.grounding.marker_as_fact import lists_only_sources

    assert lists_only_sources("The results are from [1], [2], and [3].")
    assert not lists_only_sources("The minimum version is [1].")
    assert not lists_only_sources("The default is 128 [1].")
