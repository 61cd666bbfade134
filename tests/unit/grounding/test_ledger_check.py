"""The writer's draft checked against the evidence ledger, and written again when it fails."""

from __future__ import annotations

from typing import Any

import pytest

from engine.grounding.ledger_check import check_draft
from tests.unit.grounding.test_critic import GOOD, RECORDS, SOURCES, _registry

UNLISTED = GOOD.replace("calls [1].", "calls [1]. Queue.join() blocks until processed [7].")
OUTSIDE = (
    "# Report\n\nlru_cache saves up to 128 recent calls [1].\n\n"
    "## Sources\n[1] Blog — https://blog.example.com/lru\n"
)


def test_a_draft_whose_claims_cite_ledger_sources_passes() -> None:
    check = check_draft(GOOD, RECORDS, _registry())
    assert check.ok and check.grounded_claims == 1
    assert [s.locator for s in check.report.sources] == ["f.html", "q.html"]


def test_a_cited_number_the_sources_section_lacks_is_named() -> None:
    check = check_draft(UNLISTED, RECORDS, _registry())
    assert check.errors == [
        '"Queue.join() blocks until processed." cites [7], but your Sources section has '
        "no such entry."
    ]
    assert check.grounded_claims == 1


def test_a_listed_source_outside_the_ledger_is_named() -> None:
    registry = _registry()
    registry.add_url("https://blog.example.com/lru", "Blog", "lru_cache saves 128 calls.")
    check = check_draft(OUTSIDE, RECORDS, registry)
    assert len(check.errors) == 1
    assert (
        "lists https://blog.example.com/lru, which is not in the evidence ledger"
        in (check.errors[0])
    )
    assert check.grounded_claims == 0


def test_a_draft_citing_nothing_fails_only_when_there_is_evidence() -> None:
    uncited = f"# Report\n\nlru_cache saves calls.\n\n{SOURCES}"
    assert check_draft(uncited, RECORDS, _registry()).errors[0].startswith("No sentence cites")
    assert check_draft(uncited, [], _registry()).ok


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    captured: list[Any] = []
    monkeypatch.setattr("engine.nodes.report.emit", captured.append)
    return captured
