"""The writer role: a report from the plan and the ledger, every sentence a quoted claim."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage, SystemMessage

from engine.citations.evidence import EvidenceRecord
from engine.citations.pipeline import check_report
from engine.citations.registry import SourceRegistry
from engine.models.offline import OfflineChatModel
from engine.models.offline.conversation import Conversation
from engine.models.offline.writer import write_report
from engine.prompt_blocks import format_ledger, format_plan
from engine.schemas import ResearchPlan, ResearchTrack
from tests.unit.offline.offline_corpus import CORPUS

PLAN = ResearchPlan(
    scope="How asyncio tasks are cancelled.",
    tracks=[
        ResearchTrack(title="Cancelling a task", section="Cancellation", queries=["cancel task"]),
        ResearchTrack(title="Task groups", section="Task groups", queries=["task group"]),
        ResearchTrack(title="Timeouts", section="Timeouts and deadlines", queries=["timeout"]),
    ],
)
_MARKS = re.compile(r"(?:\s*\[\d+\])+$")
_URLISH = re.compile(r"https?://[^\s)\]]+")


def _ledger() -> list[EvidenceRecord]:
    records = []
    for page in CORPUS:
        for number, sentence in enumerate(page.text.split(". ")[:3], start=1):
            claim = sentence if sentence.endswith(".") else sentence + "."
            records.append(
                EvidenceRecord(id=f"{page.title}-{number}", claim=claim, source_urls=[page.locator])
            )
    return records


def _prompt(records: list[EvidenceRecord], extra: str = "") -> list:
    human = (
        f"Research question: How are asyncio tasks cancelled?\n\n{format_plan(PLAN)}\n\n"
        f"{extra}\n\n{format_ledger(records)}"
    )
    return [SystemMessage("Write the final research report."), HumanMessage(human)]


def _body_lines(report: str) -> list[str]:
    body = report.split("## Sources")[0]
    return [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]


async def test_report_has_title_summary_a_section_per_track_and_sources() -> None:
    records = _ledger()
    reply = await OfflineChatModel().ainvoke(_prompt(records))
    report = reply.text
    assert report.startswith("# How are asyncio tasks cancelled?")
    headings = [ln for ln in report.splitlines() if ln.startswith("## ")]
    assert headings == [
        "## Summary",
        "## Cancellation",
        "## Task groups",
        "## Timeouts and deadlines",
        "## Sources",
    ]
    claims = {r.claim for r in records}
    for line in _body_lines(report):
        assert _MARKS.search(line), line  # every sentence cited
        assert _MARKS.sub("", line) in claims  # and quoted from the ledger
    # Claims land in the section they fit: the timeout sentence goes under Timeouts.
    timeouts = report.split("## Timeouts and deadlines")[1].split("## Sources")[0]
    assert "timeout() context manager" in timeouts


async def test_sources_are_numbered_in_citation_order_and_verify_cleanly() -> None:
    records = _ledger()
    titles = "Sources:\n[1] Coroutines and Tasks: https://docs.example.org/asyncio-task.html"
    report = (await OfflineChatModel().ainvoke(_prompt(records, titles))).text
    sources = report.split("## Sources\n")[1].splitlines()
    assert all(re.match(rf"^\[{n}\] .+: \S", line) for n, line in enumerate(sources, start=1))
    assert "[1] Coroutines and Tasks: https://docs.example.org/asyncio-task.html" in sources or any(
        "Coroutines and Tasks: https://docs.example.org/asyncio-task.html" in s for s in sources
    )
    registry = SourceRegistry()
    for page in CORPUS:
        if page.is_url:
            registry.add_url(page.locator, page.title)
        else:
            registry.add_document(page.locator, page.title)
    checked = check_report(report, registry)
    assert checked.verification.removed_citations == []
    assert checked.verification.status == "verified"


async def test_empty_ledger_writes_no_claims() -> None:
    report = (await OfflineChatModel().ainvoke(_prompt([]))).text
    assert "[" not in report and "http" not in report


_url = st.builds(
    lambda host, path: f"https://{host}.example/{path}",
    st.from_regex(r"[a-z]{3,8}", fullmatch=True),
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
)
_claim = st.from_regex(r"[A-Z][a-z]{2,9}( [a-z]{2,9}){5,12}\.", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_claim, st.lists(_url, min_size=1, max_size=3)), max_size=12))
def test_never_writes_a_url_that_is_not_in_its_input(entries) -> None:
    records = [
        EvidenceRecord(id=f"r{i}", claim=claim, source_urls=urls)
        for i, (claim, urls) in enumerate(entries)
    ]
    given_urls = {url for record in records for url in record.source_urls}
    report = write_report(Conversation(_prompt(records))).content
    assert set(_URLISH.findall(report)) <= given_urls
    for line in _body_lines(report):
        assert _MARKS.sub("", line) in {r.claim for r in records} | {
            "No evidence was recorded, so there is nothing to report."
        }
