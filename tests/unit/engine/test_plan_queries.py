"""A drafted plan's queries as they will be searched: a result's locator line is its
locator; a query that names only the collection every result comes from goes."""

from __future__ import annotations

from engine.models.offline.sources import parse_search_results
from engine.nodes.plan_queries import names_the_collection, with_searchable_queries
from engine.schemas import ResearchPlan, ResearchTrack

MANUAL = "Apache HTTP Server Version 2.4"
RESULTS = "\n\n".join(
    f"[{n}] {module} - {MANUAL}\nDocument: {module}.html\nThe {module} module does things."
    for n, module in enumerate(["mod_deflate", "mod_brotli", "mod_expires", "mod_headers"], 1)
)


def _plan(*queries: list[str]) -> ResearchPlan:
    return ResearchPlan(
        scope="Apache HTTPd",
        tracks=[
            ResearchTrack(title=f"Track {n}", section=f"Track {n}", queries=q)
            for n, q in enumerate(queries, 1)
        ],
        evidence_strategy="Module pages.",
    )


def test_a_locator_line_is_its_locator_and_the_collections_name_goes() -> None:
    # The 1.5B's httpd plan: each track searched the manual's name and a locator line.
    plan = _plan(
        ["mod_deflate", MANUAL, "Document: mod_deflate.html"],
        ["mod_brotli", "URL:  https://httpd.example/mod/mod_brotli.html"],
        ["Expires header", "mod_expires"],
    )

    searched = with_searchable_queries(plan, RESULTS)

    assert [track.queries for track in searched.tracks] == [
        ["mod_deflate", "mod_deflate.html"],
        ["mod_brotli", "https://httpd.example/mod/mod_brotli.html"],
        ["Expires header", "mod_expires"],
    ]
    assert with_searchable_queries(searched, RESULTS) is searched


def test_a_track_that_searches_only_the_collection_keeps_its_query() -> None:
    plan = _plan([MANUAL], ["mod_deflate"], ["mod_expires"])
    assert with_searchable_queries(plan, RESULTS) is plan


def test_a_name_in_one_title_or_in_too_few_pages_names_no_collection() -> None:
    pages = parse_search_results(RESULTS)
    assert names_the_collection("Apache HTTP Server", pages)
    assert not names_the_collection("mod_deflate", pages)  # one page's own name
    assert not names_the_collection("Apache compression", pages)  # a word no title has
    assert not names_the_collection(MANUAL, pages[:2])  # two pages say nothing of a collection
    assert not names_the_collection("", pages)
    # The subject's own word in the pages' own names is a part of the subject.
    subject = parse_search_results(
        "\n\n".join(
            f"[{n}] {title}\nDocument: {n}.html\nText."
            for n, title in enumerate(["Routine Vacuuming", "Automatic Vacuuming", "VACUUM"], 1)
        )
    )
    assert not names_the_collection("vacuum", subject)
    unsearched = _plan([MANUAL], ["x"], ["y"])
    assert with_searchable_queries(unsearched, "") is unsearched
