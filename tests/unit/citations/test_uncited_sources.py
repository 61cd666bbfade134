"""Sources that only removed sentences cited leave the list; the rest are numbered 1..k."""

from __future__ import annotations

from engine.citations.uncited import cited_numbers, drop_uncited_sources

REPORT = (
    "# Answer\n\n"
    "Queues block until every item is processed [1]. Locks guard shared state [3].\n\n"
    "## Sources\n"
    "[1] Queues: asyncio-queue.html\n"
    "[2] Tasks: asyncio-task.html\n"
    "[3] Locks: asyncio-sync.html\n"
)


def test_a_source_no_longer_cited_leaves_and_later_ones_move_up() -> None:
    closed = drop_uncited_sources(REPORT, candidates={1, 2, 3})
    assert closed.dropped == (2,) and closed.renumbered == {1: 1, 3: 2}
    assert "Locks guard shared state [2]." in closed.report
    assert "[2] Locks: asyncio-sync.html" in closed.report
    assert "asyncio-task.html" not in closed.report
    assert cited_numbers(closed.report) == {1, 2}


def test_only_candidates_may_go() -> None:
    closed = drop_uncited_sources(REPORT, candidates={1, 3})
    assert closed.report == REPORT and not closed.dropped
    assert drop_uncited_sources(REPORT).dropped == (2,)  # any entry, by default


def test_the_heading_stays_when_every_entry_left_is_renumbered() -> None:
    report = "Locks guard shared state [2].\n\n## Sources\n[1] Queues: q.html\n[2] Locks: l.html\n"
    closed = drop_uncited_sources(report)
    assert closed.report == "Locks guard shared state [1].\n\n## Sources\n[1] Locks: l.html\n"


def test_a_report_that_cites_nothing_keeps_its_list() -> None:
    uncited = REPORT.replace(" [1]", "").replace(" [3]", "")
    assert drop_uncited_sources(uncited, candidates={1, 2, 3}).report == uncited


def test_the_list_and_its_heading_stay_for_the_sources_still_cited() -> None:
    report = "Queues block until every item is processed [1].\n\n## Sources\n[1] Queues: q.html\n"
    removed = report.replace(" [1]", "")
    # Nothing cited at all: left alone; with one of two cited, the other goes, heading stays.
    assert drop_uncited_sources(removed, candidates={1}).report == removed
    two = report + "[2] Tasks: t.html\n"
    assert drop_uncited_sources(two, candidates={1, 2}).report == report
