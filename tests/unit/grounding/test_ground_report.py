"""ground_report: unsupported claims leave the body (strict) or are marked (mark)."""

from __future__ import annotations

from engine.citations.registry import SourceRegistry
from engine.config import GroundingMode
from engine.grounding.enforce import (
    LOST_CITATIONS,
    NOTHING_LEFT,
    UNCITED,
    UNCITED_WEAK,
    UNSUPPORTED_MARK,
    GroundedReport,
    ground_report,
)
from engine.grounding.score import NO_TEXT, score_claim

LRU = (
    "@functools.lru_cache(maxsize=128, typed=False) Decorator to wrap a function with a "
    "memoizing callable that saves up to the maxsize most recent calls. The cache is "
    "threadsafe so that the wrapped function can be used in multiple threads."
)
QUEUE = (
    "asyncio.Queue: A first in, first out (FIFO) queue. If maxsize is less than or equal to "
    "zero, the queue size is infinite. join() blocks until all items in the queue have been "
    "received and processed."
)


def _registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.add_document("functools.html", "functools", LRU)
    registry.add_document("asyncio-queue.html", "Queues", QUEUE)
    return registry


SOURCES = {1: "functools.html", 2: "asyncio-queue.html"}


def _ground(report: str, mode: GroundingMode) -> GroundedReport:
    """`report` grounded against the two sample sources, as written (nothing lost before)."""
    return ground_report(report, original=report, sources=SOURCES, registry=_registry(), mode=mode)


REPORT = (
    "# Caching and queues\n\n"
    "lru_cache saves up to 128 of the most recent calls by default [1]. "
    "Its cache holds at most 512 entries unless configured otherwise [1].\n\n"
    "- Queue.join() blocks until every item has been received and processed [2].\n"
    "- A background thread persists queues to disk [2].\n\n"
    "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
)


def test_strict_removes_unsupported_claims_and_keeps_supported_ones() -> None:
    grounded = _ground(REPORT, "strict")
    assert "128 of the most recent calls by default [1]." in grounded.report
    assert "Queue.join() blocks until every item" in grounded.report
    # A made-up number beside the source's words: the rules mark it; what shares nothing goes.
    assert f"otherwise [1].{UNSUPPORTED_MARK}" in grounded.report
    assert "persists queues" not in grounded.report
    assert "\n- \n" not in grounded.report and "\n-\n" not in grounded.report
    assert grounded.report.rstrip().endswith("[2] Queues — asyncio-queue.html")
    removed = {claim.text: claim for claim in grounded.removed}
    assert len(removed) == 1
    assert all(claim.status == "unsupported" and claim.reason for claim in removed.values())
    assert grounded.supported_left == 2
    kept = next(claim for claim in grounded.claims if claim.text.startswith("lru_cache saves"))
    assert "saves up to the maxsize most recent calls" in kept.excerpt


def test_mark_keeps_unsupported_claims_with_a_visible_marker() -> None:
    grounded = _ground(REPORT, "mark")
    assert f"otherwise [1].{UNSUPPORTED_MARK}" in grounded.report
    assert f"persists queues to disk [2].{UNSUPPORTED_MARK}" in grounded.report
    assert grounded.report.count(UNSUPPORTED_MARK) == 2
    assert [claim.action for claim in grounded.claims].count("marked") == 2


def test_off_changes_nothing_but_still_scores() -> None:
    grounded = _ground(REPORT, "off")
    assert grounded.report == REPORT
    assert [claim.status for claim in grounded.claims].count("unsupported") == 2


def test_a_sentence_that_lost_every_citation_in_verification_is_unsupported() -> None:
    original = "Tasks are cancelled by magic [7]. lru_cache saves up to 128 recent calls [1].\n"
    verified = (
        "Tasks are cancelled by magic. lru_cache saves up to 128 recent calls [1].\n\n"
        "## Sources\n[1] functools — functools.html\n"
    )
    grounded = ground_report(
        verified,
        original=original,
        sources={1: "functools.html"},
        registry=_registry(),
        mode="strict",
    )
    assert "magic" not in grounded.report
    assert grounded.removed[0].reason == LOST_CITATIONS
    # A sentence that never carried a citation is the writer's framing, not a lost claim.
    plain = "An introduction without sources. " + verified
    kept = ground_report(
        plain,
        original=plain,
        sources={1: "functools.html"},
        registry=_registry(),
        mode="strict",
    )
    assert "An introduction without sources." in kept.report


def test_code_and_headings_are_not_claims() -> None:
    report = "## A heading [1]\n\n```\nx = 512  # [1].\n```\n\nlru_cache keeps 128 calls [1].\n"
    grounded = ground_report(
        report,
        original=report,
        sources={1: "functools.html"},
        registry=_registry(),
        mode="strict",
    )
    assert grounded.report == report
    assert [claim.text for claim in grounded.claims] == ["lru_cache keeps 128 calls [1]."]


def test_the_score_catches_what_fluent_wrong_sentences_change() -> None:
    assert score_claim("lru_cache keeps up to 128 recent calls", [LRU]).status == "supported"
    assert score_claim("lru_cache keeps up to 256 recent calls", [LRU]).reason.endswith("256")
    assert score_claim("The cache is not threadsafe", [LRU]).status == "unsupported"
    assert score_claim("asyncio.Lock blocks until released", [LRU]).status == "unsupported"
    assert score_claim("Python was created by Guido", [LRU]).status == "unsupported"
    assert score_claim("Anything at all [1]", []).reason == NO_TEXT


def test_removals_leave_no_blank_list_items_double_spaces_or_indented_code() -> None:
    report = (
        "- Python was designed by a committee in Geneva [1]. lru_cache saves up to 128 calls [1].\n"
        "- A background thread persists queues to disk [2].\n"
        "- Queue.join() blocks until all items are processed [2].\n\n"
        "Example:\n\n    cache = lru_cache(maxsize=512)  # see [1].\n\n"
        "Mid [1]. A background thread persists queues to disk [2]. End of it [1].\n"
    )
    grounded = _ground(report, "strict")
    lines = grounded.report.split("\n")
    assert lines[0] == "- lru_cache saves up to 128 calls [1]."
    assert lines[1] == "- Queue.join() blocks until all items are processed [2]."
    assert "    cache = lru_cache(maxsize=512)  # see [1]." in lines  # code is not a claim
    assert "Mid [1]. End of it [1]." in lines
    assert not any("  " in line.strip() for line in lines if not line.startswith("    "))


def test_two_removals_on_one_line_are_applied_right_to_left() -> None:
    report = (
        "A background thread persists queues to disk [2]. lru_cache saves up to 128 calls "
        "[1]. Python was designed by a committee in Geneva [1].\n"
    )
    grounded = _ground(report, "strict")
    assert grounded.report == "lru_cache saves up to 128 calls [1].\n"


def test_text_of_another_form_of_the_cited_source_counts() -> None:
    registry = SourceRegistry()
    registry.add_document("guide.pdf, p.15", "Guide", "Installation takes one step.")
    registry.add_document("guide.pdf, p.16", "Guide", "The barrier supports up to 10 parties.")
    registry.add_url("https://a.example/x", "X", "A snippet about barriers.")
    registry.add_url("https://a.example/x/", "X", "Barriers hold at most 12 parties.")
    claim = "The barrier supports up to 10 parties [1]. Barriers hold at most 12 parties [2].\n"
    grounded = ground_report(
        claim,
        original=claim,
        sources={1: "guide.pdf, p.15", 2: "https://a.example/x"},
        registry=registry,
        mode="strict",
    )
    assert grounded.report == claim
    assert [c.status for c in grounded.claims] == ["supported", "supported"]


def test_claim_text_and_reasons_never_carry_control_sequences() -> None:
    registry = SourceRegistry()
    registry.add_document("x.html", "X", "Raise `X\x1b]0;owned\x07Error` when it fails badly.")
    report = "Raise ValueError when it fails badly \x1b[31m[1].\n"
    grounded = ground_report(
        report, original=report, sources={1: "x.html"}, registry=registry, mode="off"
    )
    claim = grounded.claims[0]
    assert claim.status == "unsupported"
    assert "\x1b" not in claim.reason and "\x07" not in claim.reason
    assert "\x1b" not in claim.text


def test_an_uncited_statement_is_cited_to_the_source_that_states_it_or_goes() -> None:
    report = (
        "## Caching\n\n"
        "The lru_cache decorator saves up to the maxsize most recent calls. "
        "Asyncio timeouts are implemented as decorators on coroutine functions. "
        "Here is how.\n\n"
        "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
    )
    strict = _ground(report, "strict")
    assert "The lru_cache decorator saves up to the maxsize most recent calls [1]." in (
        strict.report
    )
    # It shares words with the functools page: marked, not removed.
    assert f"decorators on coroutine functions.{UNSUPPORTED_MARK}" in strict.report
    assert "Here is how." in strict.report  # framing, not a claim
    marked = next(c for c in strict.claims if "coroutine" in c.text)
    assert marked.reason in (UNCITED, UNCITED_WEAK) and marked.numbers == []
    assert marked.action == "marked"
    marked = _ground(report, "mark")
    assert f"coroutine functions.{UNSUPPORTED_MARK}" in marked.report
    off = _ground(report, "off")
    assert off.report == report


def test_an_uncited_statement_is_never_cited_to_a_page_that_does_not_name_its_subject() -> None:
    # Seen on the local model: "FileHandler: Writes log messages to a file." was cited to an
    # SSL page whose key-log sentence shares the rest of its words.
    registry = SourceRegistry()
    registry.add_document(
        "ssl.html", "ssl", "keylog_filename: writes log messages of TLS keys to a file."
    )
    registry.add_document(
        "logging.html", "logging", "FileHandler sends logging output to a disk file."
    )
    report = (
        "## Handlers\n\n- **StreamHandler**: Writes log messages to a file.\n"
        "- **FileHandler**: Writes logging output to a disk file.\n\n"
        "## Sources\n[1] ssl — ssl.html\n[2] logging — logging.html\n"
    )
    grounded = ground_report(
        report,
        original=report,
        sources={1: "ssl.html", 2: "logging.html"},
        registry=registry,
        mode="strict",
    )
    # Not cited to the SSL page; the page shares its wording, so it is marked, not removed.
    assert f"**StreamHandler**: Writes log messages to a file.{UNSUPPORTED_MARK}" in grounded.report
    assert "**FileHandler**: Writes logging output to a disk file [2]." in grounded.report
    marked = next(claim for claim in grounded.claims if "StreamHandler" in claim.text)
    assert (marked.action, marked.numbers, marked.reason) == ("marked", [], UNCITED)


def test_an_answer_left_with_nothing_says_so() -> None:
    report = (
        "# Answer\n\nThe 1998 final was won by Brazil in Paris after extra time.\n\n"
        "## Sources\n[1] functools — functools.html\n"
    )
    grounded = ground_report(
        report,
        original=report,
        sources={1: "functools.html"},
        registry=_registry(),
        mode="strict",
    )
    assert grounded.report.startswith(NOTHING_LEFT)
    assert "Brazil" not in grounded.report


def test_headings_and_lead_ins_left_empty_by_removals_go_too() -> None:
    report = (
        "# Report\n\n## Overview\n"
        "Python's logging module is a flexible tool used by every serious application.\n\n"
        "## Handlers\nThese include:\n"
        "- A background thread persists queues to disk [2].\n\n"
        "### Queues\nQueue.join() blocks until all items are processed [2].\n\n"
        "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
    )
    grounded = _ground(report, "strict")
    assert grounded.report == (
        "# Report\n\n## Handlers\n\n### Queues\n"
        "Queue.join() blocks until all items are processed [2].\n\n"
        "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
    )


def test_a_search_result_title_counts_as_what_its_source_said() -> None:
    from engine.tools.preprocess import SearchResult
    from engine.tools.search import record_sources

    registry = SourceRegistry()
    result = SearchResult(
        title="Crypto — crypto.randomUUID([options])",
        passage="Node.js generates and caches enough random data to generate up to 128 random "
        "UUIDs. See also crypto.randomBytes().",
        document="crypto.md",
    )
    record_sources([result], registry)
    report = "crypto.randomUUID() caches random data for up to 128 UUIDs by default [1].\n"
    grounded = ground_report(
        report, original=report, sources={1: "crypto.md"}, registry=registry, mode="strict"
    )
    assert grounded.report == report
    assert grounded.claims[0].status == "supported"


def test_a_references_list_written_midway_does_not_end_what_is_checked() -> None:
    report = (
        "## Track 1\nlru_cache saves up to 128 recent calls [1].\n\n"
        "[1] functools — functools.html\n\n"
        "## Track 2\nfunctools.cache accepts a maxsize of 64 entries by default [1].\n\n"
        "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
    )
    grounded = _ground(report, "strict")
    assert f"maxsize of 64 entries by default [1].{UNSUPPORTED_MARK}" in grounded.report
    assert grounded.report.rstrip().endswith("[2] Queues — asyncio-queue.html")


def test_an_emptied_first_section_goes_but_the_title_stays() -> None:
    for title in ("# Report\n\n", ""):
        report = (
            f"{title}## Introduction\nA background thread persists queues to disk [2].\n\n"
            "## Queues\nQueue.join() blocks until all items are processed [2].\n\n"
            "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
        )
        grounded = _ground(report, "strict")
        assert "Introduction" not in grounded.report
        assert grounded.report.startswith(f"{title}## Queues\n")


def test_markers_standing_alone_are_removed_and_claim_nothing() -> None:
    report = (
        "lru_cache saves up to 128 of the most recent calls by default [1]. [1, 2].\n\n"
        "## Sources\n[1] functools — functools.html\n[2] Queues — asyncio-queue.html\n"
    )
    strict = _ground(report, "strict")
    assert "by default [1]." in strict.report and "[1, 2]" not in strict.report
    assert [claim.numbers for claim in strict.claims] == [[1]]
    assert "[1, 2]" in _ground(report, "off").report
