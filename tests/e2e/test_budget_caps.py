"""Hard caps end research with a partial report that a raised budget continues, losing nothing."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from engine.commands.run import EXIT_OK, EXIT_PARTIAL, run_headless
from engine.commands.sessions import _print_sessions as print_sessions
from engine.sessions import get_session
from tests.fixtures.servers import local_settings
from tests.unit.engine.test_headless import parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUESTION = "How do asyncio queues and locks coordinate tasks?"


async def run(tmp_path: Path, *argv: str, **extra: str) -> tuple[int, str, list[dict[str, Any]]]:
    settings = local_settings(tmp_path, DOCS, **extra)
    events = tmp_path / "events.jsonl"
    out = io.StringIO()
    code = await run_headless(
        settings, parse(*argv, "--events", str(events)), stderr=io.StringIO(), stdout=out
    )
    return code, out.getvalue(), [json.loads(line) for line in events.read_text().splitlines()]


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == kind]


async def test_a_token_cap_ends_research_with_a_partial_report_that_a_raised_cap_continues(
    tmp_path: Path,
) -> None:
    code, report, events = await run(
        tmp_path, QUESTION, "--mode", "deep", "--yes", BUDGET_TOKENS="15000"
    )
    assert code == EXIT_PARTIAL
    session_id = events[0]["session_id"]
    reached = of_type(events, "budget_reached")
    assert len(reached) == 1 and reached[0]["budget_tokens"] == 15_000
    assert "**Partial: budget reached (" in report.split("\n# ")[0]
    assert of_type(events, "run_finished")[-1]["status"] == "partial"
    usage = of_type(events, "usage_updated")
    assert usage[-1]["budget_tokens"] == 15_000
    spent_first = usage[-1]["total_input_tokens"] + usage[-1]["total_output_tokens"]
    info = get_session(local_settings(tmp_path, DOCS), session_id)
    assert info is not None and info.status == "partial"
    listing = io.StringIO()
    with contextlib.redirect_stdout(listing):
        print_sessions(local_settings(tmp_path, DOCS), [info])
    assert "TOKENS" in listing.getvalue() and f"{spent_first:,}" in listing.getvalue()
    partial_path = Path(of_type(events, "report_ready")[-1]["report_path"])
    audit = json.loads(partial_path.with_suffix(".audit.json").read_text())
    assert audit["usage"]["budget_tokens"] == 15_000
    assert audit["usage"]["input_tokens"] + audit["usage"]["output_tokens"] == spent_first
    assert audit["usage"]["by_role"]["writer"]["calls"] >= 1
    first_records = len(of_type(events, "evidence_added"))

    # The same cap: nothing more is researched, and it says how to go on.
    code, _, events = await run(tmp_path, "--resume", session_id, BUDGET_TOKENS="15000")
    assert code == EXIT_PARTIAL
    assert not of_type(events, "evidence_added")
    assert any("still reached" in e.get("detail", "") for e in of_type(events, "phase_changed"))

    # A raised cap: research goes on from where it stopped and the report is whole.
    code, report, events = await run(
        tmp_path, "--resume", session_id, "--budget-tokens", "200000", BUDGET_TOKENS="15000"
    )
    assert code == EXIT_OK
    assert "Partial" not in report
    assert of_type(events, "run_finished")[-1]["status"] == "completed"
    usage = of_type(events, "usage_updated")
    # Totals count the earlier legs' spend too.
    assert usage[0]["total_input_tokens"] + usage[0]["total_output_tokens"] > spent_first
    final = of_type(events, "report_ready")[-1]
    kept = {entry["source"] for entry in final["kept_citations"]}
    assert kept, "the continued report cites its evidence"
    assert partial_path.is_file() and Path(final["report_path"]) != partial_path
    assert "Partial: budget reached" in partial_path.read_text()
    assert first_records > 0


async def test_a_quick_question_over_its_cap_answers_from_what_it_found(tmp_path: Path) -> None:
    code, report, events = await run(
        tmp_path,
        "What is the default maxsize of an asyncio.Queue?",
        "--mode",
        "quick",
        "--budget-tokens",
        "1",
    )
    assert code == EXIT_PARTIAL
    assert of_type(events, "budget_reached")
    assert "**Partial: budget reached" in report
    assert of_type(events, "report_ready")[-1]["report"].strip()
