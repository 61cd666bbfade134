"""A document key's page in the forms writers use resolves to that page's retrieved key."""

from __future__ import annotations

import pytest

from engine.citations.keys import parse_document_key
from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry


@pytest.mark.parametrize(
    "written",
    ["guide.pdf, p. 16", "guide.pdf, pp. 16–17", "guide.pdf page 16", "guide.pdf, S. 16",
     "guide.pdf, S.16", "guide.pdf (p. 16)", "guide.pdf, pp. 16-17"],
)  # fmt: skip
def test_each_page_form_names_the_page(written: str) -> None:
    key = parse_document_key(written)
    assert key is not None and (key.file_name, key.page) == ("guide.pdf", 16)


@pytest.mark.parametrize(
    "written", ["guide.pdf, S. 16", "guide.pdf, pp. 16–17", "guide.pdf page 16"]
)
def test_a_sources_entry_with_a_page_form_cites_that_page(written: str) -> None:
    registry = SourceRegistry()
    registry.add_document("guide.pdf, p.15", "Guide", "Installation takes one step.")
    registry.add_document("guide.pdf, p.16", "Guide", "Removal takes two steps.")
    report = f"Removal takes two steps [1].\n\n## Sources\n[1] Guide — {written}\n"
    checked = check_report(report, registry, strict=True)
    assert [c.source for c in checked.verification.valid_citations] == ["guide.pdf, p.16"]
    assert checked.report.endswith("[1] Guide: guide.pdf, p.16\n")
