"""A section named by a report's framing is named after its track; one naming its part stays."""

from __future__ import annotations

from engine.nodes.plan_sections import with_named_sections
from engine.schemas import ResearchPlan

PINO = "How does pino send logs to other destinations with transports, and how does it keep secrets out of the logs?"  # noqa: E501


def _plan(*tracks: tuple[str, str, list[str]]) -> ResearchPlan:
    return ResearchPlan.model_validate(
        {
            "scope": "the question",
            "tracks": [{"title": t, "section": s, "queries": q} for t, s, q in tracks],
        }
    )


def test_framing_sections_are_named_after_their_tracks() -> None:
    # The bundled 1.5B's plan for the pino question.
    plan = _plan(
        (
            "Understanding Pino's logging mechanism and its ability to send logs to various "
            "destinations using transports",
            "Introduction",
            ["Understanding Pino's logging mechanism", "Transports in Pino"],
        ),
        (
            "Exploring Pino's security features that prevent sensitive information from being "
            "logged",
            "Methodology",
            ["Security features of Pino", "Pino's redaction feature"],
        ),
        ("Analyzing the implementation of these features", "Results", ["implementation.md"]),
    )
    named = with_named_sections(plan, PINO)
    assert [track.section for track in named.tracks] == [
        "Understanding Pino's logging mechanism",
        "Security features of Pino",
        "Analyzing the implementation of these features",
    ]
    assert [t.title for t in named.tracks] == [t.title for t in plan.tracks]


def test_a_section_sharing_a_word_with_its_track_or_the_question_stays() -> None:
    question = "How can Apache httpd compress responses and control how clients cache them?"
    plan = _plan(
        ("mod_deflate", "Compression", ["mod_deflate", "compress responses"]),
        ("mod_headers", "Caching", ["mod_headers", "cache control headers"]),
        ("Cache expiry", "Expiry", ["mod_expires", "Expires header"]),
    )
    assert with_named_sections(plan, question) is plan


def test_a_section_is_named_without_its_number() -> None:
    # The 1.5B's PostgreSQL plans: a manual's section number, an outline's.
    question = "How does PostgreSQL autovacuum decide when to vacuum and analyze a table?"
    plan = _plan(
        ("Automatic Vacuuming", "20.10. Automatic Vacuuming", ["runtime-config-autovacuum.html"]),
        ("Configuration Parameters", "3. Configuration Parameters", ["autovacuum parameters"]),
        ("Thresholds", "25.1.6. Thresholds", ["autovacuum_vacuum_threshold"]),
        ("Python 3.11", "3.11 Changes", ["whatsnew 3.11"]),
    )
    named = with_named_sections(plan, question)
    assert [track.section for track in named.tracks] == [
        "Automatic Vacuuming",
        "Configuration Parameters",
        "Thresholds",
        "3.11 Changes",  # a version, not a section number
    ]


def test_a_section_named_after_a_numbered_query_is_named_without_the_number() -> None:
    # The 1.5B's PostgreSQL plan: a framing section, its track searching a page's title as the
    # search results showed it, number and all; two such tracks ran in two sections.
    question = "How does PostgreSQL autovacuum decide when to vacuum and analyze a table?"
    plan = _plan(
        ("Decision-Making", "Introduction", ["20.10. Automatic Vacuuming", "25.1. Routine"]),
        ("Settings", "VACUUM ANALYZE", ["VACUUM ANALYZE"]),
        ("Behavior and Performance", "Results", ["20.10. automatic vacuuming", "ANALYZE"]),
    )
    named = with_named_sections(plan, question)
    assert [track.section for track in named.tracks] == [
        "Automatic Vacuuming",
        "VACUUM ANALYZE",
        "Automatic vacuuming: Behavior and Performance",  # named by its query and title
    ]


def test_a_long_title_is_cut_at_a_word_when_no_query_can_name_the_section() -> None:
    title = "Exploring " + "the many ways transports move log lines between processes " * 3
    plan = _plan(
        (title.strip(), "Discussion", ["transports.md"]),
        ("Redaction", "Redaction", ["redact"]),
        ("Levels", "Levels", ["levels"]),
    )
    section = with_named_sections(plan, "pino").tracks[0].section
    assert section.endswith("…") and len(section) <= 81 and title.startswith(section[:-1])


def test_a_section_named_by_a_file_name_is_named_after_its_track() -> None:
    # The bundled 1.5B's httpd plan: each section the file name of the page its track read.
    question = "How can Apache httpd compress responses and control how clients cache them?"
    plan = _plan(
        ("mod_deflate", "mod_deflate.html", ["mod_deflate", "DEFLATE output filter"]),
        ("mod_brotli", "mod_brotli.html", ["mod_brotli.html", "brotli output filter"]),
        ("mod_headers", "https://httpd.apache.org/mod_headers", ["cache control headers"]),
    )
    named = with_named_sections(plan, question)
    assert [track.section for track in named.tracks] == [
        "mod_deflate",  # a code name keeps its case
        "Brotli output filter",  # the first query that is no file name
        "Cache control headers",
    ]


def test_a_section_named_by_a_manual_page_is_named_after_its_track() -> None:
    # The bundled 1.5B's Git plan: a track's section and queries were manual pages.
    question = (
        "How does Git clean up unreachable objects and keep a repository compact, and which "
        "commands and settings control it?"
    )
    plan = _plan(
        (
            "Commands and Settings for Unreachable Object Management",
            "git-reflog(1)",
            ["git-reflog(1)", "git-maintenance(1)", "git-prune(1)"],
        ),
        ("Pruning", "Pruning", ["git prune"]),
        ("Repacking", "git repack", ["git repack"]),
    )

    named = with_named_sections(plan, question)

    assert [track.section for track in named.tracks] == [
        "Commands and Settings for Unreachable Object Management",
        "Pruning",
        "git repack",  # words of the subject, not a page
    ]
