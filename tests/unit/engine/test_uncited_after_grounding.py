"""The verifier's report and audit drop a source once grounding removed all that cited it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.citations.registry import SourceRegistry
from engine.citations.uncited import NEVER_CITED_REASON, UNCITED_REASON
from tests.unit.engine.verify_runs import report_ready

ALPHA = "Alpha caches every lookup in memory, so a repeated lookup costs nothing."
BETA = "Beta writes each record to disk before it answers."
GAMMA = "Gamma retries a failed request three times."
DOCUMENTS = {"alpha.md": ("Alpha", ALPHA), "beta.md": ("Beta", BETA), "gamma.md": ("Gamma", GAMMA)}


def registry_of(*keys: str) -> SourceRegistry:
    registry = SourceRegistry()
    for key in keys:
        registry.add_document(key, *DOCUMENTS[key])
    return registry


async def test_the_source_of_a_removed_sentence_leaves_and_the_rest_move_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = registry_of("alpha.md", "beta.md", "gamma.md")
    report = (
        "Alpha caches every lookup in memory [1]. "
        "Beta was written in Fortran by a committee in Oslo [2]. "
        "Gamma retries a failed request three times [3].\n\n## Sources\n"
        "[1] Alpha: alpha.md\n[2] Beta: beta.md\n[3] Gamma: gamma.md\n"
    )
    ready = await report_ready(tmp_path, monkeypatch, report, registry, "strict")
    assert "Fortran" not in ready.report and "beta.md" not in ready.report
    assert "three times [2]." in ready.report and "[2] Gamma: gamma.md" in ready.report
    assert [(c.number, c.source) for c in ready.kept_citations] == [
        (1, "alpha.md"),
        (2, "gamma.md"),
    ]
    assert [(c.source, c.reason) for c in ready.removed_citations] == [("beta.md", UNCITED_REASON)]
    numbers = {claim.text.split()[0]: claim.numbers for claim in ready.claims}
    assert numbers == {"Alpha": [1], "Beta": [], "Gamma": [2]}


async def test_a_source_the_writer_listed_but_never_cited_leaves_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = registry_of("alpha.md", "gamma.md")
    report = (
        "Gamma retries a failed request three times [2].\n\n## Sources\n"
        "[1] Alpha: alpha.md\n[2] Gamma: gamma.md\n"
    )
    ready = await report_ready(tmp_path, monkeypatch, report, registry, "strict")
    assert ready.report.endswith("three times [1].\n\n## Sources\n[1] Gamma: gamma.md\n")
    assert [(c.number, c.source) for c in ready.kept_citations] == [(1, "gamma.md")]
    assert [(c.source, c.reason) for c in ready.removed_citations] == [
        ("alpha.md", NEVER_CITED_REASON)
    ]


async def test_a_removed_sentence_does_not_choose_the_passage_shown_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = SourceRegistry()
    registry.add_document("guide.md", "Guide", "Beta is slow because it reads every record.")
    registry.add_passage(
        "guide.md", "Gamma retries failed network requests with backoff, jitter and breakers."
    )
    report = (
        "Beta is slow because it reads every record [1]. "
        "Delta was designed by a committee in Oslo in the winter of its first year [1]."
        "\n\n## Sources\n[1] Guide: guide.md\n"
    )
    ready = await report_ready(tmp_path, monkeypatch, report, registry, "strict")
    assert "Oslo" not in ready.report
    assert ready.kept_citations[0].excerpt.startswith("Beta is slow")
