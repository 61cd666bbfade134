"""A kept citation carries its source's title and the text the source returned."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.citations.registry import SourceRegistry
from engine.nodes.verify import SOURCE_EXCERPT_CHARS
from tests.unit.engine.verify_runs import report_ready

PASSAGE = "Alpha is fast because it caches every lookup in memory."


async def test_a_kept_citation_carries_the_passage_its_source_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = SourceRegistry()
    registry.add_url("https://a.example.org/1", title="Alpha notes", passage=PASSAGE)
    registry.add_document("guide.md", passage="word " * 2_000)
    report = (
        "Alpha is fast [1]. The guide says so [2].\n\n## Sources\n"
        "[1] https://a.example.org/1\n[2] guide.md"
    )
    ready = await report_ready(tmp_path, monkeypatch, report, registry, "off")
    web, document = ready.kept_citations
    assert (web.title, web.excerpt) == ("Alpha notes", PASSAGE)
    assert document.excerpt.startswith("word word")
    assert len(document.excerpt) <= SOURCE_EXCERPT_CHARS + 2


async def test_the_passage_the_citing_sentence_rests_on_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = SourceRegistry()
    registry.add_document("guide.md", passage="An unrelated opening about installation steps.")
    registry.add_passage("guide.md", "Beta is slow because it reads every record from disk.")
    report = "Beta is slow because it reads every record from disk [1].\n\n## Sources\n[1] guide.md"
    ready = await report_ready(tmp_path, monkeypatch, report, registry, "mark")
    assert ready.kept_citations[0].excerpt.startswith("Beta is slow")
