"""Research that reaches its unit cap without passing the quality gate says so."""

from __future__ import annotations

import io
import json
from pathlib import Path

from engine.commands.run import EXIT_OK, run_headless
from tests.fixtures.servers import local_settings
from tests.unit.engine.test_headless import parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUESTION = "How do asyncio queues and locks coordinate tasks?"


async def run_deep(tmp_path: Path, **extra: str) -> tuple[str, list[dict[str, object]]]:
    settings = local_settings(tmp_path, DOCS, **extra)
    events = tmp_path / "events.jsonl"
    out = io.StringIO()
    code = await run_headless(
        settings,
        parse(QUESTION, "--mode", "deep", "--yes", "--events", str(events)),
        stderr=io.StringIO(),
        stdout=out,
    )
    assert code == EXIT_OK
    return out.getvalue(), [json.loads(line) for line in events.read_text().splitlines()]


async def test_a_gate_never_passed_is_said_in_the_events_and_atop_the_report(
    tmp_path: Path,
) -> None:
    report, events = await run_deep(
        tmp_path, MIN_EVIDENCE_RECORDS="500", MAX_RESEARCHER_ITERATIONS="2"
    )
    details = [e.get("detail") or "" for e in events if e["type"] == "phase_changed"]
    assert any("research stopped before the quality gate passed" in d for d in details)
    assert "**Limited research:**" in report.split("\n## ")[0]
    assert "need 500" in report


async def test_a_passed_gate_adds_no_warning(tmp_path: Path) -> None:
    report, events = await run_deep(tmp_path, MIN_EVIDENCE_RECORDS="1", MIN_SOURCE_DOMAINS="1")
    assert "Limited research" not in report
    assert not any(
        "quality gate passed" in (e.get("detail") or "")
        for e in events
        if e["type"] == "phase_changed"
    )
