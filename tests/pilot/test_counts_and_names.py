"""Counts agree with their nouns, units are named the same in every pane, and every screen's
footer and the header fit 80×24 without cutting a key or a fact in half."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static
from textual.widgets._footer import FooterKey

from engine.citations.evidence import EvidenceRecord
from engine.events import (
    ModelCallProgress,
    PhaseChanged,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RouteDecided,
    RunFinished,
    SessionStarted,
)
from engine.progress_text import describe_model_call
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    FakeBackend,
    ScriptedDriver,
    full_story,
    report_event,
)
from tests.pilot.steps import ask, press_and_settle
from tui.presentation.labels import unit_label
from tui.widgets.context_footer import ContextFooter
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable

QUICK_UNIT = ResearchUnitSummary(
    id="quick-1", topic=QUESTION, status="completed", tool_call_count=1, evidence_count=1
)


def quick_story() -> dict[str, list[list[object]]]:
    """A quick answer from one tool call and one record from one domain."""
    record = EvidenceRecord(
        id="q-e1",
        claim="The event loop runs every callback in its own thread.",
        source_urls=["https://docs.python.org/3/library/asyncio-eventloop.html"],
        confidence=0.9,
        research_unit_id="quick-1",
    )
    from engine.events import EvidenceAdded

    return {
        "start": [
            [
                SessionStarted(session_id=SESSION_ID, question=QUESTION, offline=True),
                RouteDecided(mode="quick", reason="one fact"),
                PhaseChanged(phase="quick_research"),
                ResearchUnitUpdated(unit=QUICK_UNIT),
                EvidenceAdded(record=record),
                report_event(mode="quick"),
                PhaseChanged(phase="done"),
                RunFinished(session_id=SESSION_ID),
            ]
        ]
    }


def test_unit_labels_are_short_and_distinct() -> None:
    assert unit_label("unit-3") == "3"
    assert unit_label("unit-2.1") == "2.1"
    assert unit_label("quick-1") == "Q1"
    assert unit_label("quick-2") == "Q2"
    assert unit_label("u7") == "u7"  # an unknown form shows as it is


def test_a_model_writing_its_first_token_says_token() -> None:
    event = ModelCallProgress(role="writer", state="generating", output_tokens=1)
    assert "1 token," in (describe_model_call(event) or "")


async def test_one_record_from_one_domain_reads_in_the_singular(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(quick_story()))  # type: ignore[arg-type]
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        header = app.screen.query_one(StatusHeader).status_text().plain
        assert "evidence 1 record · 1 domain" in header, header
        ledger = app.screen.query_one(LedgerPane)
        assert ledger.border_subtitle == "1 record"
        units = app.screen.query_one(UnitsTable)
        assert "1 tool call ·" in units.preview_text(QUICK_UNIT).plain


async def test_the_quick_units_name_fits_its_column_and_is_named_under_both_tables(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(quick_story()))  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "3", "f10")
        pane = app.screen.query_one(LedgerPane)
        ledger = pane.query_one(DataTable)
        shown = str(ledger.get_cell("q-e1", "unit"))
        assert shown == "Q1"
        assert ledger.columns["unit"].width >= len(shown)  # type: ignore[index]
        record = pane.records[0]
        assert f"unit Q1: {QUESTION}" in pane.preview_text(record).plain
        units = app.screen.query_one(UnitsTable)
        assert units.preview_text(QUICK_UNIT).plain.startswith("unit Q1 · ")


def footer_fits(app: object) -> list[str]:
    """The footer's keys on screen, after checking none runs past the right edge."""
    screen = app.screen  # type: ignore[attr-defined]
    keys = list(screen.query(FooterKey))
    for key in keys:
        assert key.region.right <= screen.region.right, (key.description, key.region)
    return [key.description for key in keys]


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_the_settings_footer_fits_and_shows_the_settings_keys(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=size) as pilot:
        await press_and_settle(pilot, "f3")
        assert isinstance(app.screen.query_one(ContextFooter), ContextFooter)
        shown = footer_fits(app)
        assert shown[:3] == ["Back", "Save .env", "Probe endpoints"], shown
        assert "Help" in shown
        assert "Settings" not in shown  # the screen it is already on


async def test_the_sessions_footer_shows_open_and_fits(tmp_path: Path) -> None:
    backend = FakeBackend(ScriptedDriver(full_story()), env_path=tmp_path / ".env")
    from tui.app import DeepResearchApp

    app = DeepResearchApp(backend, clock=lambda: 100.0, export_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        shown = footer_fits(app)
        assert shown[0] == "Open", shown
        assert "Delete" in shown and "Back" in shown
        assert "Sessions" not in shown


async def test_the_header_at_80_columns_keeps_the_gate_whole(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await press_and_settle(pilot, "f10")  # the report took the screen: the header back
        line = app.screen.query_one("#status-line", Static)
        shown = line.render()
        plain = getattr(shown, "plain", str(shown))
        assert "elapsed" in plain and plain.rstrip().endswith("passed"), plain
        assert len(plain.rstrip()) <= line.size.width
        # The offline model is no language model: no tokens to count.
        assert "tokens" not in app.screen.query_one(StatusHeader).status_text().plain
