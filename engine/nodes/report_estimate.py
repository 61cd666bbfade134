"""What writing the report will cost, priced as its writer's calls will be priced.

Research stops with room left for the report (engine.budget). Each section's call is priced
at what it reads (engine.nodes.section_writer): the section's findings with their passages,
as `section_input` builds them. A track with no findings yet is priced as a section of a few
passages, since research is dispatched to find them: before its first wave a session has no
findings at all, and its researchers would otherwise spend what the report needs. Pricing the
report from the findings' claims alone left it too little room: a capped session stopped
research, then found that no section call fit, and assembled its report with no writer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.budget import call_tokens
from engine.citations.registry import SourceRegistry
from engine.config import Settings
from engine.nodes.common import ledger_records
from engine.nodes.section_inputs import (
    PASSAGE_CHARS,
    SECTION_OUTPUT_TOKENS,
    report_plan,
    section_groups,
    section_input,
    section_input_chars,
)
from engine.prompts import SECTION_PROMPT, SUMMARY_PROMPT

# The summary reads the written sections' sentences and writes a few of its own.
SUMMARY_OUTPUT_TOKENS = 400
# What a section still to be researched is expected to read: a few passages and their findings.
EXPECTED_SECTION_PASSAGES = 3


def report_tokens(state: Mapping[str, Any], settings: Settings) -> int:
    """Tokens the report's calls will take: one per section with findings, one expected for
    each approved track without findings yet (a track the caps leave unresearched costs only
    its one line, so this errs towards stopping research early), and the summary."""
    records = ledger_records(state.get("evidence_ledger"))
    registry = SourceRegistry.from_dict(state.get("registry"))
    plan = report_plan(state)
    question = str(state.get("question") or "")
    budget = section_input_chars(settings)
    total = 0
    claims: list[str] = []
    expected = _expected_section(question)
    for heading, title, found, index in section_groups(
        plan, records, dict(state.get("research_units") or {})
    ):
        if not found:
            total += expected if index >= 0 else 0
            continue
        section = section_input(heading, title, question, found, registry, budget)
        total += call_tokens((SECTION_PROMPT, section.prompt()), SECTION_OUTPUT_TOKENS)
        claims += [record.claim for record in found]
    texts = claims or ["x" * PASSAGE_CHARS]
    return total + call_tokens((SUMMARY_PROMPT, question, *texts), SUMMARY_OUTPUT_TOKENS)


def _expected_section(question: str) -> int:
    passages = "x" * (PASSAGE_CHARS * EXPECTED_SECTION_PASSAGES)
    return call_tokens((SECTION_PROMPT, question, passages), SECTION_OUTPUT_TOKENS)
