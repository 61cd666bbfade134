"""Tracks that name a report's parts ("Introduction", "Methodology") instead of the subject's
give way to the pages the planner's searches found."""

from __future__ import annotations

from engine.nodes.plan_framing import is_framing, with_subject_tracks
from engine.schemas import ResearchPlan, ResearchTrack

QUESTION = (
    "How does PostgreSQL autovacuum decide when to vacuum and analyze a table, "
    "and which settings control it?"
)
# The plan the bundled 1.5B drafted for QUESTION over the PostgreSQL pages (2026-11-30).
RESULTS_SENTENCE = (
    "The research will focus on the thresholds that determine when autovacuum runs and the "
    "settings that influence its behavior."
)
FRAMING_PLAN = ResearchPlan(
    scope="To understand how PostgreSQL's autovacuum decides when to vacuum and analyze a table",
    tracks=[
        ResearchTrack(title="Introduction", section="Introduction", queries=[QUESTION]),
        ResearchTrack(
            title="Methodology",
            section="Methodology",
            queries=[
                "To understand how PostgreSQL's autovacuum decides when to vacuum and analyze a "
                "table, I will conduct a detailed analysis of the PostgreSQL documentation."
            ],
        ),
        ResearchTrack(title="Results", section="Results", queries=[RESULTS_SENTENCE]),
        ResearchTrack(title="Conclusion", section="Conclusion", queries=[RESULTS_SENTENCE]),
    ],
)
# What the planner was shown: the search tool's format, best results first.
SEARCH_RESULTS = """### How does PostgreSQL autovacuum decide when to vacuum and analyze a table?
Search results for "How does PostgreSQL autovacuum decide when to vacuum and analyze a table?":

[1] 20.10. Automatic Vacuuming
Document: runtime-config-autovacuum.html
If -1 is specified, autovacuum will not trigger a VACUUM operation on any tables.

[2] 20.12. Lock Management
Document: runtime-config-locks.html
Ideally the setting should exceed your typical transaction time.

[3] 25.1. Routine Vacuuming
Document: routine-vacuuming.html
Temporary tables cannot be accessed by autovacuum.

[4] 25.1. Routine Vacuuming
Document: routine-vacuuming.html
PostgreSQL has an optional but highly recommended feature called autovacuum.

[5] VACUUM
Document: sql-vacuum.html
PostgreSQL includes an autovacuum facility which can automate routine vacuum maintenance."""


SUBJECT = ResearchPlan(
    scope="Autovacuum",
    tracks=[
        ResearchTrack(title=t, section=t, queries=[f"autovacuum {t.lower()}"])
        for t in ("Thresholds", "Scale factors", "Cost limits")
    ],
)


def test_a_track_named_after_a_part_of_the_report_is_framing() -> None:
    assert [is_framing(track, QUESTION) for track in FRAMING_PLAN.tracks] == [True] * 4


def test_a_track_named_after_its_subject_is_not() -> None:
    thresholds = ResearchTrack(
        title="Thresholds", section="Thresholds", queries=["autovacuum_vacuum_threshold"]
    )
    wraparound = ResearchTrack(
        title="Transaction ID wraparound", section="Wraparound", queries=["vacuum freeze xid"]
    )
    assert not is_framing(thresholds, QUESTION), "a code name counts by its parts"
    # A subtopic in words of its own is framing by words alone; one such track is no outline.
    assert is_framing(wraparound, QUESTION)
    plan = FRAMING_PLAN.model_copy(update={"tracks": [wraparound, *FRAMING_PLAN.tracks[1:]]})
    assert with_subject_tracks(plan, QUESTION, SEARCH_RESULTS).tracks[0] != wraparound
    lone = plan.model_copy(update={"tracks": [wraparound, *SUBJECT.tracks]})
    assert with_subject_tracks(lone, QUESTION, SEARCH_RESULTS) is lone


def test_framing_tracks_give_way_to_the_pages_found_in_rank_order() -> None:
    plan = with_subject_tracks(FRAMING_PLAN, QUESTION, SEARCH_RESULTS)
    assert [(t.title, t.queries) for t in plan.tracks] == [
        ("Automatic Vacuuming", ["runtime-config-autovacuum.html", "Automatic Vacuuming"]),
        ("Routine Vacuuming", ["routine-vacuuming.html", "Routine Vacuuming"]),
        ("VACUUM", ["sql-vacuum.html", "VACUUM"]),
    ], "a page sharing no word with the question (Lock Management) is no part of it"


def test_with_fewer_pages_than_framing_tracks_the_plan_keeps_its_minimum() -> None:
    one_page = SEARCH_RESULTS.split("\n\n[2]")[0]
    plan = with_subject_tracks(FRAMING_PLAN, QUESTION, one_page)
    # "Conclusion" searched what "Results" searched: a repeat, it goes first.
    assert [t.title for t in plan.tracks] == ["Automatic Vacuuming", "Methodology", "Results"]


def test_a_plan_of_the_subject_or_without_search_results_is_left_alone() -> None:
    assert with_subject_tracks(SUBJECT, QUESTION, SEARCH_RESULTS) is SUBJECT
    outline = FRAMING_PLAN.model_copy(update={"tracks": FRAMING_PLAN.tracks[:3]})
    assert with_subject_tracks(outline, QUESTION, "") is outline


def test_a_page_whose_locator_is_no_valid_query_is_passed_over() -> None:
    long_url = "[1] Autovacuum tuning guide\nURL: https://example.com/" + "a" * 450 + "\nText.\n\n"
    plan = with_subject_tracks(
        FRAMING_PLAN, QUESTION, long_url + SEARCH_RESULTS.split("\n\n", 1)[1]
    )
    assert plan.tracks[0].title == "Automatic Vacuuming"


VACUUMDB_RESULT = """

[6] vacuumdb
Document: app-vacuumdb.html
--buffer-usage-limit size Specifies the buffer ring size. Note This option is only available
for servers running PostgreSQL 13 and later."""


def test_a_track_titled_with_a_sentence_of_a_result_is_named_after_that_page() -> None:
    copied = ResearchTrack(
        title="Note This option is only available for servers running PostgreSQL 13 and later.",
        section="Note",
        queries=["vacuumdb options"],
    )
    plan = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks, copied]})

    renamed = with_subject_tracks(plan, QUESTION, SEARCH_RESULTS + VACUUMDB_RESULT)

    assert [(t.title, t.section, t.queries) for t in renamed.tracks][-1] == (
        "vacuumdb",
        "vacuumdb",
        ["vacuumdb options"],
    )
    assert renamed.tracks[:3] == SUBJECT.tracks


def test_a_copied_title_whose_page_a_track_already_names_goes_while_the_plan_keeps_three() -> None:
    copied = ResearchTrack(
        title="PostgreSQL has an optional but highly recommended feature called autovacuum.",
        section="Autovacuum",
        queries=["autovacuum feature"],
    )
    routine = ResearchTrack(
        title="Routine Vacuuming", section="Routine", queries=["routine-vacuuming.html"]
    )
    four = SUBJECT.model_copy(update={"tracks": [routine, copied, *SUBJECT.tracks[:2]]})
    three = SUBJECT.model_copy(update={"tracks": [routine, copied, SUBJECT.tracks[0]]})

    assert [t.title for t in with_subject_tracks(four, QUESTION, SEARCH_RESULTS).tracks] == [
        "Routine Vacuuming",
        "Thresholds",
        "Scale factors",
    ]
    assert with_subject_tracks(three, QUESTION, SEARCH_RESULTS) is three


def test_a_subheading_of_a_page_is_a_name_not_a_copied_sentence() -> None:
    subheading = ResearchTrack(
        title="25.1.5. Preventing Transaction ID Wraparound Failures",
        section="Wraparound",
        queries=["xid wraparound"],
    )
    results = SEARCH_RESULTS + (
        "\n\n[6] 25.1. Routine Vacuuming\nDocument: routine-vacuuming.html\n"
        "25.1.5. Preventing Transaction ID Wraparound Failures PostgreSQL's MVCC transaction "
        "semantics depend on being able to compare transaction ID numbers."
    )
    plan = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks, subheading]})

    assert with_subject_tracks(plan, QUESTION, results) is plan


def test_a_track_searching_what_an_earlier_one_searches_goes_while_the_plan_keeps_three() -> None:
    again = ResearchTrack(
        title="Thresholds again",
        section="Thresholds again",
        queries=["Autovacuum  thresholds"],  # the first track's one query, spaced and cased
    )
    four = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks, again]})
    three = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks[:2], again]})
    other = again.model_copy(update={"queries": ["autovacuum thresholds", "per-table"]})
    distinct = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks, other]})

    assert with_subject_tracks(four, QUESTION, SEARCH_RESULTS).tracks == SUBJECT.tracks
    assert with_subject_tracks(three, QUESTION, SEARCH_RESULTS) is three
    assert with_subject_tracks(distinct, QUESTION, SEARCH_RESULTS) is distinct


def test_a_track_titled_as_an_earlier_one_goes_whatever_it_searches() -> None:
    # The 1.5B's httpd plan had "mod_brotli" twice, with different queries; the section of the
    # second had been renamed "mod_brotli (5)" so the plan's sections stay distinct.
    first = SUBJECT.tracks[0]
    twice = first.model_copy(
        update={"section": f"{first.section} (4)", "queries": ["something else entirely"]}
    )
    four = SUBJECT.model_copy(update={"tracks": [*SUBJECT.tracks, twice]})

    assert with_subject_tracks(four, QUESTION, SEARCH_RESULTS).tracks == SUBJECT.tracks
