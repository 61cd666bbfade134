"""One question's session scored: the facts in the answer, the page cited, what it cost.

And the summary of a whole run: completed, fact recall, right-source rate, citations kept and
removed, unsupported-claim rate, latency p50/p95, tokens; and, when the LLM judge ran, the
mean of each of its dimensions. The judge's grades are read from each result's `judge`
record as plain data, so nothing of the judge is imported here.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.evals.dataset import EvalQuestion
from engine.events import Event
from engine.grounding.claims import prose_line_count
from engine.sessions_log import run_outcome


@dataclass
class QuestionResult:
    id: str
    question: str
    status: str  # completed | failed | cancelled | no report
    seconds: float
    report: str = ""
    error: str = ""
    scored: bool = False
    facts_found: int = 0
    facts_expected: int = 0
    right_source: bool = False
    cited_sources: list[str] = field(default_factory=list)
    citations_kept: int = 0
    citations_removed: int = 0
    claims: int = 0
    unsupported_claims: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    # The LLM judge's grades (engine/evals/judge.py), when ENABLE_ONLINE_EVALS is on.
    judge: dict[str, Any] | None = None

    @property
    def correct(self) -> bool:
        """Every expected fact in the answer, and the page it is on cited."""
        return self.scored and self.facts_found == self.facts_expected and self.right_source

    def as_json(self) -> dict[str, Any]:
        data = {**asdict(self), "correct": self.correct}
        if self.judge is None:  # the judge was off: the record says nothing of it
            del data["judge"]
        return data


def _prose(report: str) -> str:
    return "\n".join(report.split("\n")[: prose_line_count(report)])


def source_matches(expected: str, cited: str) -> bool:
    """A document key by its name or last path part; a URL pattern as a regex."""
    if cited == expected or cited.rstrip("/").rsplit("/", 1)[-1] == expected:
        return True
    try:
        return re.search(expected, cited) is not None
    except re.error:
        return expected in cited


def score_session(
    question: EvalQuestion, events: list[Event], seconds: float, error: str = ""
) -> QuestionResult:
    outcome = run_outcome(events)
    result = QuestionResult(
        question.id,
        question.question,
        outcome.status or "no report",
        round(seconds, 3),
        error=outcome.error,
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
    )
    report = outcome.report
    if error:
        result.status, result.error = "failed", error
    if report is not None:
        result.report = report.report
        result.cited_sources = [entry.source for entry in report.kept_citations]
        result.citations_kept = len(report.kept_citations)
        result.citations_removed = len(report.removed_citations)
        result.claims = len(report.claims)
        result.unsupported_claims = sum(c.status == "unsupported" for c in report.claims)
    if question.scored:
        prose = _prose(result.report)
        result.scored = True
        result.facts_expected = len(question.facts)
        result.facts_found = sum(1 for fact in question.facts if fact.search(prose))
        result.right_source = not question.sources or any(
            source_matches(expected, cited)
            for expected in question.sources
            for cited in result.cited_sources
        )
    return result


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def summarize(results: list[QuestionResult]) -> dict[str, Any]:
    scored = [r for r in results if r.scored]
    claims = sum(r.claims for r in results)
    seconds = [r.seconds for r in results]

    def rate(count: int, of: int) -> float:
        return round(count / of, 3) if of else 0.0

    summary: dict[str, Any] = {
        "questions": len(results),
        "completed": rate(sum(r.status == "completed" for r in results), len(results)),
        "fact_recall": rate(
            sum(r.facts_found for r in scored), sum(r.facts_expected for r in scored)
        ),
        "right_source": rate(sum(r.right_source for r in scored), len(scored)),
        "correct": rate(sum(r.correct for r in scored), len(scored)),
        "citations_kept": sum(r.citations_kept for r in results),
        "citations_removed": sum(r.citations_removed for r in results),
        "unsupported_claims": rate(sum(r.unsupported_claims for r in results), claims),
        "latency_p50_s": round(statistics.median(seconds), 2) if seconds else 0.0,
        "latency_p95_s": round(_percentile(seconds, 0.95), 2),
        "input_tokens": sum(r.input_tokens for r in results),
        "output_tokens": sum(r.output_tokens for r in results),
    }
    summary.update(judge_summary(results))
    return summary


def judge_summary(results: list[QuestionResult]) -> dict[str, Any]:
    """The judge's part of the summary: how many reports it graded and failed on, and the
    mean score of each dimension over the reports it scored (empty when it did not run)."""
    records = [r.judge for r in results if r.judge is not None]
    if not records:
        return {}
    asked = [record for record in records if record.get("status") != "skipped"]
    summary: dict[str, Any] = {
        "judge_graded": sum(record.get("status") == "graded" for record in asked),
        "judge_failed": sum(record.get("status") in ("partial", "failed") for record in asked),
    }
    dimensions: list[str] = []
    for record in asked:
        dimensions += [name for name in record.get("scores") or {} if name not in dimensions]
    for name in dimensions:
        scores = [
            record["scores"][name]
            for record in asked
            if isinstance((record.get("scores") or {}).get(name), int | float)
        ]
        summary[f"judge_{name}"] = round(statistics.fmean(scores), 2) if scores else None
    summary["judge_seconds"] = round(sum(float(r.get("seconds") or 0) for r in asked), 1)
    summary["judge_input_tokens"] = sum(int(r.get("input_tokens") or 0) for r in asked)
    summary["judge_output_tokens"] = sum(int(r.get("output_tokens") or 0) for r in asked)
    return summary


# Higher is better for these; a drop beyond the tolerance against a baseline is a regression.
GATED = ("completed", "fact_recall", "right_source", "correct")
TOLERANCE = 0.02


def regressions(summary: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    found = []
    for name in GATED:
        if name in baseline and summary.get(name, 0.0) < float(baseline[name]) - TOLERANCE:
            found.append(f"{name} {summary.get(name)} < baseline {baseline[name]}")
    return found
