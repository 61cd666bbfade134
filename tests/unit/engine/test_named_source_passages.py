"""A research unit's query that names a source is read, not searched as words.

Seen on the bundled 1.5B: every track's queries were file names copied from the planner's
search results (`runtime-config-autovacuum.html`); searched as words they found the pages that
mention "html" (a licence file, another chapter), and the report was written from those.
"""

from __future__ import annotations

from pathlib import Path

from engine.citations.registry import SourceRegistry
from engine.nodes.deps import default_deps
from engine.nodes.researcher_passages import names_a_source, retrieve_passages
from tests.fixtures.servers import local_settings

AUTOVACUUM = (
    "# Automatic Vacuuming\n\n"
    + "These settings control the behavior of the autovacuum feature. " * 3
    + "\n\nautovacuum_vacuum_threshold: the minimum number of updated or deleted tuples "
    "needed to trigger a VACUUM in any one table. The default is 50 tuples.\n\n"
    + "Logging settings are described elsewhere in this chapter of the manual. "
    * 12
)
LICENCE = (
    "# License\n\nThe pages in this folder are copied unchanged, html and all: "
    "runtime config autovacuum html html html.\n"
)


def _corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "runtime-config-autovacuum.md").write_text(AUTOVACUUM, encoding="utf-8")
    (folder / "LICENSE.md").write_text(LICENCE, encoding="utf-8")
    return folder


async def test_a_document_key_query_gives_that_document_s_passages_for_the_topic(
    tmp_path: Path,
) -> None:
    settings = local_settings(tmp_path / "data", _corpus(tmp_path))
    passages = await retrieve_passages(
        default_deps(settings),
        SourceRegistry(),
        "unit-1",
        "Autovacuum thresholds: when is a table vacuumed",
        ["runtime-config-autovacuum.md"],
    )
    assert passages, "the named document was read"
    assert {passage.locator for passage in passages} == {"runtime-config-autovacuum.md"}
    # The passage that answers the topic comes first, not the document's head.
    assert "autovacuum_vacuum_threshold" in passages[0].text


async def test_a_name_that_is_no_source_is_searched_as_words(tmp_path: Path) -> None:
    settings = local_settings(tmp_path / "data", _corpus(tmp_path))
    passages = await retrieve_passages(
        default_deps(settings), SourceRegistry(), "unit-1", "licence", ["missing-page.md"]
    )
    assert passages and all(p.locator != "missing-page.md" for p in passages)


def test_what_names_a_source() -> None:
    assert names_a_source("runtime-config-autovacuum.html")
    assert names_a_source("https://example.org/docs/page")
    assert names_a_source("guide/transports.md")
    for words in ("autovacuum thresholds", "PostgreSQL 15", "v1.2", "e.g.", "mod_deflate"):
        assert not names_a_source(words), words
