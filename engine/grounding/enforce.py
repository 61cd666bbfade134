"""ground_claims: check every cited sentence of a verified report and act on the verdict.

Runs after citation verification, on the report as the reader will get it. Each sentence
carrying citations is checked against everything its cited sources returned (every passage
the registry kept and, for a local document, its indexed text): its words found there
verbatim settle it; otherwise a judge model, where one is configured, reads it beside the
best passages of its sources; otherwise the lexical score and its screens decide
(engine/grounding/assess.py). With GROUNDING=strict a sentence the judge found contradicted,
or that no retrieved text shares content with, leaves the body for the audit, and any other
unsupported sentence stays marked; with `mark` every unsupported one stays marked; with `off`
nothing changes but the verdicts are still recorded. A sentence whose every citation the
verifier removed (its sources were never retrieved) is unsupported by definition: it never
stays as an uncited fact.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from engine.citations.registry import SourceRegistry
from engine.citations.rewrite import tidy_after_removal
from engine.config import GroundingMode
from engine.events import ClaimSupport
from engine.grounding.assess import Assessed, assessed_claim, shares_content, with_score
from engine.grounding.claims import (
    LIST_MARK,
    Sentence,
    prose_line_count,
    sentences,
    strip_markers,
    without_markers,
)
from engine.grounding.judge import JudgeItem, SupportJudge
from engine.grounding.judged import with_outcome
from engine.grounding.marker_as_fact import MARKER_AS_FACT, marker_stands_for_fact
from engine.grounding.names import code_names, names_every
from engine.grounding.passages import DocumentText, Passage, cited_passages, every_passage
from engine.grounding.score import ClaimScore, score_claim
from engine.terminal_text import terminal_safe
from engine.text.markers import cite_sentence
from engine.text.words import content_words

UNSUPPORTED_MARK = " _(unsupported by its sources)_"
OFF_QUESTION_MARK = " _(off the question asked)_"
ATTRIBUTED = "cited by grounding: it restates this source"
NOTHING_LEFT = (
    "_No sentence of this answer is supported by the retrieved sources; the unsupported "
    "sentences were removed (`deepresearch audit` lists them)._"
)
UNCITED = "it cites nothing and no retrieved source states it"
UNCITED_WEAK = "it cites nothing; a retrieved source shares part of its wording"
# Fewer content words than this is framing ("Here is how it works."), not a claim.
MIN_STATEMENT_WORDS = 4
_RANK = {"unsupported": 0, "weak": 1, "supported": 2}
_SPACES = re.compile(r"[ \t]{2,}")
_WORD = re.compile(r"\w")
LOST_CITATIONS = "its citations were removed: they point at no retrieved source"
_MAX_CLAIM_CHARS = 600


@dataclass
class GroundedReport:
    """The report after grounding, and every claim with its verdict."""

    report: str
    claims: list[ClaimSupport] = field(default_factory=list)

    @property
    def removed(self) -> list[ClaimSupport]:
        return [claim for claim in self.claims if claim.action == "removed"]

    @property
    def supported_left(self) -> int:
        """Claims still in the report that their sources support (weakly or well)."""
        return sum(
            1 for claim in self.claims if claim.action == "kept" and claim.status != "unsupported"
        )


@dataclass(frozen=True)
class _Checked:
    """One sentence of the report and what grounding found about it."""

    sentence: Sentence
    assessed: Assessed | None = None
    # The source number an uncited statement is cited to; markers with nothing to vouch for.
    cite: int | None = None
    bare_markers: bool = False
    # The passages its cited sources returned (what a judge reads).
    cited: tuple[Passage, ...] = ()


@dataclass(frozen=True)
class _Context:
    sources: Mapping[int, str]
    registry: SourceRegistry
    document_text: DocumentText | None

    def cited(self, numbers: Sequence[int]) -> list[Passage]:
        locators = [self.sources[n] for n in numbers if n in self.sources]
        return cited_passages(locators, self.registry, self.document_text)

    def everything(self) -> Callable[[], list[Passage]]:
        @cache
        def passages() -> list[Passage]:
            return every_passage(self.registry, self.document_text)

        return passages


def ground_report(
    report: str,
    *,
    original: str,
    sources: Mapping[int, str],
    registry: SourceRegistry,
    mode: GroundingMode,
    uncited: bool = True,
    document_text: DocumentText | None = None,
) -> GroundedReport:
    """Check `report`'s claims without a model; remove or mark the unsupported ones as `mode`
    says.

    `sources` maps each citation number of `report` to the registry locator it stands for;
    `original` is the writer's text before verification (to find sentences that lost every
    citation there). With `uncited`, a statement that cites nothing is a claim too: cited to
    the source that supports it, else unsupported (a fact from the model's memory).
    `document_text` gives a local document's whole indexed text by its key.
    """
    context = _Context(sources, registry, document_text)
    checked = _checked(report, original, context, uncited=uncited)
    return _applied(report, checked, mode)


async def ground_report_judged(
    report: str,
    *,
    original: str,
    sources: Mapping[int, str],
    registry: SourceRegistry,
    mode: GroundingMode,
    judge: SupportJudge | None,
    question: str | None = None,
    uncited: bool = True,
    document_text: DocumentText | None = None,
) -> GroundedReport:
    """`ground_report`, with `judge` asked about the cited sentences no quote settled.

    With `question` (a quick answer), the judge also says whether each cited sentence answers
    it, quoted ones included; one that does not is marked.
    """
    context = _Context(sources, registry, document_text)
    # Reading whole documents and scoring against them is blocking work: off the event loop.
    checked = await asyncio.to_thread(_checked, report, original, context, uncited=uncited)
    if judge is not None:
        checked = await _judged(checked, judge, question)
    return _applied(report, checked, mode)


async def _judged(
    checked: list[_Checked], judge: SupportJudge, question: str | None
) -> list[_Checked]:
    asked = [
        index
        for index, item in enumerate(checked)
        if item.assessed is not None
        and item.sentence.numbers
        and item.cited
        and item.assessed.claim.reason != MARKER_AS_FACT
        and (item.assessed.claim.decided_by != "quote" or question)
    ]
    if not asked:
        return checked
    items = [
        JudgeItem(strip_markers(checked[i].sentence.text).strip(), checked[i].cited) for i in asked
    ]
    outcomes = await judge.judge(items, question)
    updated = list(checked)
    for index, outcome in zip(asked, outcomes, strict=True):
        item = checked[index]
        assert item.assessed is not None
        updated[index] = _Checked(
            item.sentence,
            with_outcome(item.assessed, outcome),
            item.cite,
            item.bare_markers,
            item.cited,
        )
    return updated


def _checked(report: str, original: str, context: _Context, *, uncited: bool) -> list[_Checked]:
    lost = _cited_before(original)
    found: list[_Checked] = []
    for sentence in sentences(report, set(context.sources)):
        if sentence.numbers and not _WORD.search(strip_markers(sentence.text)):
            # Markers standing alone ("… [1]. [1, 2, 3].") vouch for nothing: kept, they would
            # count sources as cited that no sentence rests on.
            found.append(_Checked(sentence, bare_markers=True))
            continue
        if sentence.numbers:
            cited = context.cited(sentence.numbers)
            assessed = assessed_claim(
                _bare_claim(sentence, context.sources), sentence.text, cited, context.everything()
            )
            if assessed.claim.decided_by != "quote" and marker_stands_for_fact(sentence.text):
                # Its source's own words stand whatever they end on; anything else whose
                # citation took the place of its fact states nothing.
                claim = _marker_as_fact(sentence, context.sources)
                shared = shares_content(strip_markers(sentence.text), context.everything()())
                assessed = Assessed(claim, removable=not shared)
            found.append(_Checked(sentence, assessed, cited=tuple(cited)))
            continue
        if without_markers(sentence.text) in lost:
            claim = ClaimSupport(text=_claim_text(sentence), reason=LOST_CITATIONS)
            found.append(_Checked(sentence, Assessed(claim, removable=True)))
            continue
        if uncited and _is_statement(sentence.text):
            found.append(_uncited(sentence, context))
    return found


def _applied(report: str, checked: list[_Checked], mode: GroundingMode) -> GroundedReport:
    claims: list[ClaimSupport] = []
    edits: _Edits = {}
    for item in checked:
        sentence = item.sentence
        if item.bare_markers:
            if mode != "off":
                _edit(edits, sentence, "")
            continue
        assert item.assessed is not None
        if item.cite is not None and mode != "off":
            # An uncited statement a source supports: cited to that source.
            _edit(edits, sentence, cite_sentence(sentence.text, item.cite))
        claims.append(_enforced(item.assessed, sentence, mode, edits))
    if not edits:
        return GroundedReport(report, claims)
    text = _edited(report, edits)
    if any(claim.action == "removed" for claim in claims) and not _has_prose(text):
        # Say so, rather than hand over headings with nothing under them.
        text = f"{NOTHING_LEFT}\n\n{text}"
    return GroundedReport(text, claims)


def _cited_before(original: str) -> set[str]:
    """Sentences of the writer's report that carried a citation, as `without_markers` folds them."""
    return {without_markers(s.text) for s in sentences(original) if s.numbers}


def _bare_claim(sentence: Sentence, sources: Mapping[int, str]) -> ClaimSupport:
    cited = [n for n in sentence.numbers if n in sources]
    return ClaimSupport(
        text=_claim_text(sentence),
        numbers=cited,
        sources=list(dict.fromkeys(sources[n] for n in cited)),
    )


def _marker_as_fact(sentence: Sentence, sources: Mapping[int, str]) -> ClaimSupport:
    """A sentence whose citation took the place of its fact: unsupported, whatever it cites."""
    return _bare_claim(sentence, sources).model_copy(update={"reason": MARKER_AS_FACT})


def _claim_text(sentence: Sentence) -> str:
    return terminal_safe(sentence.text.strip()[:_MAX_CLAIM_CHARS])


def _is_statement(text: str) -> bool:
    """A sentence that states something: long enough, not a list's lead-in, not a question."""
    stripped = text.strip()
    return len(content_words(stripped)) >= MIN_STATEMENT_WORDS and not stripped.endswith((":", "?"))


def _uncited(sentence: Sentence, context: _Context) -> _Checked:
    """An uncited statement, scored against each of the report's sources: cited to the one
    that supports it, else unsupported.

    A source that never names what the sentence names (`FileHandler`, `wait_for`) is not
    offered: citing it would be the engine inventing a citation, as when "FileHandler writes
    log messages to a file" shares its other words with an SSL page's key-log file.
    """
    names = code_names(sentence.text)
    best: tuple[int, ClaimScore, list[Passage]] | None = None
    for number in context.sources:
        passages = context.cited([number])
        if names and not names_every(names, " ".join(p.text for p in passages)):
            continue
        verdict = score_claim(
            sentence.text, [p.text for p in passages], [p.source for p in passages]
        )
        if best is None or (_RANK[verdict.status], verdict.score) > (
            _RANK[best[1].status],
            best[1].score,
        ):
            best = (number, verdict, passages)
    claim = ClaimSupport(text=_claim_text(sentence))
    if best is not None and best[1].status == "supported":
        number, verdict, passages = best
        claim = claim.model_copy(update={"numbers": [number], "sources": [context.sources[number]]})
        supported = with_score(claim, verdict, passages).model_copy(update={"reason": ATTRIBUTED})
        return _Checked(sentence, Assessed(supported, removable=False), cite=number)
    # A cited sentence stays unless its source is shown not to support it; an uncited one
    # stays only when a source is shown to support it. Partial wording is not enough.
    weak = best is not None and best[1].status == "weak"
    claim = claim.model_copy(
        update={
            "score": best[1].score if best is not None else 0.0,
            "status": "unsupported",
            "reason": UNCITED_WEAK if weak else UNCITED,
        }
    )
    removable = not shares_content(sentence.text, context.everything()())
    return _Checked(sentence, Assessed(claim, removable))


# Per line of the report, the edits to make: (start, end, replacement) spans of that line.
_Edits = dict[int, list[tuple[int, int, str]]]


def _enforced(
    assessed: Assessed, sentence: Sentence, mode: GroundingMode, edits: _Edits
) -> ClaimSupport:
    """An unsupported claim removed or marked as `mode` and its verdict say, its edit queued;
    else as is. Strict mode removes only what `assessed` says may go."""
    claim = assessed.claim
    if mode == "off":
        return claim
    if claim.answers_question is False and claim.status != "unsupported":
        _edit(edits, sentence, sentence.text.rstrip() + OFF_QUESTION_MARK)
        return claim.model_copy(update={"action": "marked"})
    if claim.status != "unsupported":
        return claim
    if mode == "strict" and assessed.removable:
        _edit(edits, sentence, "")
        return claim.model_copy(update={"action": "removed"})
    _edit(edits, sentence, sentence.text.rstrip() + UNSUPPORTED_MARK)
    return claim.model_copy(update={"action": "marked"})


def _edit(edits: _Edits, sentence: Sentence, replacement: str) -> None:
    edits.setdefault(sentence.line, []).append((sentence.start, sentence.end, replacement))


def _edited(report: str, edits: _Edits) -> str:
    """`report` with every edit made, emptied lines dropped and the layout tidied."""
    lines = report.split("\n")
    emptied: set[int] = set()
    for index, changes in edits.items():
        line = lines[index]
        for start, end, replacement in sorted(changes, reverse=True):
            line = line[:start] + replacement + line[end:]
        edited = _tidied_line(lines[index], line)
        if edited is None:
            emptied.add(index)
        else:
            lines[index] = edited
    kept = [line for index, line in enumerate(lines) if index not in emptied]
    return tidy_after_removal(_pruned("\n".join(kept)), report).lstrip("\n")


_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")


def _pruned(report: str) -> str:
    """Without the headings and list lead-ins that removals left with nothing under them.

    The report's title (a first `#` heading) stays, and the sources section is not touched.
    """
    lines = report.split("\n")
    prose = prose_line_count(report)
    body, tail = lines[:prose], lines[prose:]
    changed = True
    while changed:
        changed = False
        title = _first_heading(body)
        for index, line in enumerate(body):
            heading = _HEADING.match(line)
            if heading is None and not line.rstrip().endswith(":"):
                continue
            if heading is not None and index == title:
                continue
            level = len(heading.group(1)) if heading else 7
            if not _has_content_after(body, index, level):
                del body[index]
                changed = True
                break
    return "\n".join(body + tail)


def _first_heading(lines: list[str]) -> int | None:
    """The report's title: its first heading, when that is a level-1 heading."""
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading is not None:
            return index if len(heading.group(1)) == 1 else None
    return None


def _has_content_after(lines: list[str], index: int, level: int) -> bool:
    """Whether prose follows line `index` before a heading of `level` or higher ends it."""
    for line in lines[index + 1 :]:
        heading = _HEADING.match(line)
        if heading is not None:
            if len(heading.group(1)) <= level or level == 7:
                return False
            continue
        if line.strip():
            return True
    return False


def _has_prose(report: str) -> bool:
    body = report.split("\n")[: prose_line_count(report)]
    return any(line.strip() and not line.lstrip().startswith("#") for line in body)


def _tidied_line(before: str, after: str) -> str | None:
    """The edited line with its indent and list mark kept and gaps closed; None when empty."""
    indent = before[: len(before) - len(before.lstrip())]
    mark = LIST_MARK.match(after)
    head = mark.group(0).strip() + " " if mark else ""
    body = _SPACES.sub(" ", after[mark.end() if mark else 0 :]).strip()
    if not body:
        return None
    return f"{indent}{head}{body}"
