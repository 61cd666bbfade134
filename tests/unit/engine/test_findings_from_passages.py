"""A researcher's findings are statements about its subject: a source's title and locator, or
a page's table cells, are no finding; the findings it did not write are quoted from the
passages it was shown, those that best match its topic."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from engine.citations.registry import SourceRegistry
from engine.nodes.extraction import findings_from_messages
from engine.nodes.researcher_passages import Passage, passages_block, seed_catalog
from engine.sourcing.finding_text import finding_text

TITLE = "mod_brotli - Apache HTTP Server Version 2.4"
LOCATOR = "mod_brotli.html"
# A page as the search returns it: its settings table first, run into the prose after it.
PAGE = (
    "| Description: | Maximum input block size | |---|---| | Syntax: | "
    "BrotliCompressionMaxInputBlock value | | Default: | (automatic) | | Status: | Extension | "
    "The BrotliCompressionMaxInputBlock directive specifies the maximum input block size "
    "as a power of two, between 16 and 24. Larger block sizes can improve compression but "
    "require more memory. The mod_brotli module provides the BROTLI_COMPRESS output filter "
    "that compresses output before it is sent to the client."
)


@pytest.mark.parametrize(
    "claim",
    [
        # Header line and locator written back as one sentence (a 1.5B model, httpd docs).
        f"{TITLE} Document: {LOCATOR} {TITLE}.",
        f"{TITLE}",
        # Table cells with no sentence after them.
        "| Status: | Extension | | Module: | mod_brotli |",
        # A list item's number written back as a finding (the 1.5B, PostgreSQL pages).
        "3.",
    ],
)
def test_a_claim_that_only_names_its_source_or_holds_table_cells_is_no_finding(
    claim: str,
) -> None:
    assert finding_text(claim, [TITLE, LOCATOR]) == ""


def test_table_cells_before_a_sentence_go_and_the_sentence_stays() -> None:
    claim = (
        "| Syntax: | BrotliCompressionMaxInputBlock value | | Default: | (automatic) | "
        "The BrotliCompressionMaxInputBlock directive specifies the maximum input block size."
    )
    assert finding_text(claim, [TITLE, LOCATOR]) == (
        "The BrotliCompressionMaxInputBlock directive specifies the maximum input block size."
    )


def test_a_statement_that_also_names_its_source_is_kept_as_written() -> None:
    claim = "mod_brotli compresses responses with the Brotli format before they reach the client."
    assert finding_text(claim, [TITLE, LOCATOR]) == claim
    assert finding_text("Default: 30.", [TITLE, LOCATOR]) == "Default: 30.", "short, but says"
    noted = "## Note This option is only available for servers running PostgreSQL 13 and later."
    assert finding_text(noted, [TITLE, LOCATOR]) == noted.removeprefix("## ")
    gap = "[…] The usual goal of routine vacuuming is to do standard VACUUMs often enough."
    assert finding_text(gap, [TITLE, LOCATOR]) == gap.removeprefix("[…] ")


def _findings(reply: str, topic: str, max_claims: int = 3) -> list[str]:
    passages = [Passage(1, TITLE, LOCATOR, PAGE)]
    registry = SourceRegistry()
    registry.add_document(LOCATOR, TITLE, PAGE)
    messages = [
        HumanMessage(content=f"{topic}\n\n{passages_block(passages)}"),
        AIMessage(content=reply),
    ]
    found = findings_from_messages(
        messages,
        registry,
        unit_id="unit-2",
        max_claims=max_claims,
        max_sources_per_claim=2,
        max_bullets=10,
        word_budget=300,
        seed=seed_catalog(passages),
    )
    assert [record.id for record in found.records] == [
        f"unit-2-e{n}" for n in range(1, len(found.records) + 1)
    ]
    assert all(record.source_urls == [LOCATOR] for record in found.records)
    return [record.claim for record in found.records]


def test_a_reply_that_only_writes_its_sources_back_gets_the_passage_sentences_on_its_topic() -> (
    None
):
    claims = _findings(f"{TITLE} Document: {LOCATOR} {TITLE} [1].", "brotli input block size")
    assert claims
    assert claims[0].startswith("The BrotliCompressionMaxInputBlock directive specifies")
    assert not any("|" in claim or "Document:" in claim for claim in claims)


def test_the_findings_it_wrote_come_first_and_are_not_quoted_again() -> None:
    own = "Larger block sizes can improve compression but require more memory [1]."
    claims = _findings(own, "brotli input block size memory")
    assert claims[0] == own.replace(" [1].", ".")
    assert len(claims) == len({claim.casefold() for claim in claims}) > 1
    assert sum("Larger block sizes" in claim for claim in claims) == 1


def test_a_unit_that_wrote_as_many_findings_as_it_may_keep_gets_no_quotes() -> None:
    own = (
        "Larger block sizes can improve compression but require more memory [1]. "
        "The module provides the BROTLI_COMPRESS output filter [1]."
    )
    claims = _findings(own, "brotli", max_claims=2)
    assert len(claims) == 2 and not any("power of two" in claim for claim in claims)


def test_a_finding_that_writes_its_task_back_is_none_and_quotes_take_its_place() -> None:
    task = (
        "Research track: mod_brotli\nSection: Compression\nQueries: brotli | input block size\n"
        "The research as a whole covers: Apache httpd directives that control compression"
    )
    written_back = (
        "The research as a whole covers Apache httpd directives that control compression [1]."
    )
    claims = _findings(written_back, task)
    assert claims and not any("research as a whole" in claim for claim in claims)
    assert claims[0].startswith("The BrotliCompressionMaxInputBlock directive specifies")


def test_a_label_the_page_was_shown_under_later_is_no_finding_either() -> None:
    # A manual page comes back once per section; each section's result carries its own label,
    # and the 1.5B wrote them back as findings ("git-prune(1) — NOTES"), each at 0.90.
    registry = SourceRegistry()
    registry.add_document("git-gc.html", "git-gc(1) — HOOKS", "The gc hook runs first.")
    registry.add_document("git-gc.html", "git-gc(1) — CONFIGURATION", "gc.auto sets a limit.")
    assert registry.title_for("git-gc.html") == "git-gc(1) — HOOKS"
    assert registry.labels_for("git-gc.html") == ["git-gc(1) — HOOKS", "git-gc(1) — CONFIGURATION"]
    found = findings_from_messages(
        [
            HumanMessage(content="gc settings"),
            AIMessage(
                content="git-gc(1) — CONFIGURATION [1].\n"
                "gc.auto sets how many loose objects start a repack [1].\n\n"
                "Sources:\n[1] git-gc(1) — HOOKS: git-gc.html\n"
            ),
        ],
        registry,
        unit_id="unit-3",
        max_claims=5,
        max_sources_per_claim=2,
        max_bullets=10,
        word_budget=300,
    )
    claims = [record.claim for record in found.records]
    assert claims == ["gc.auto sets how many loose objects start a repack."]


def test_a_finding_made_of_the_questions_words_is_its_answer_not_the_task_written_back() -> None:
    from engine.nodes.plan_dispatch import track_topic
    from engine.schemas import ResearchTrack

    track = ResearchTrack(title="mod_brotli", section="Compression", queries=["mod_brotli"])
    task = track_topic(track, "Apache httpd", "Does mod_brotli compress output before sending?")
    answer = "mod_brotli does compress output before sending [1]."
    claims = _findings(answer, task)
    assert claims[0] == answer.replace(" [1].", ".")
