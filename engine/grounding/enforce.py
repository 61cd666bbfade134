"""ground_claims: score every cited sentence of a verified report and act on the verdict.

Runs after citation verification, on the report as the reader will get it. Each sentence
carrying citations is scored against the text its cited sources returned (kept in the
source registry). With GROUNDING=strict an unsupported sentence leaves the body for the
audit; with `mark` it stays, followed by a visible marker; with `off` nothing changes but
the scores are still recorded. A sentence whose every citation the verifier removed (its
sources were never retrieved) is unsupported by definition: it never stays as an uncited fact.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.citations.registry import SourceRegistry
from engine.citations.rewrite import tidy_after_removal
from engine.config import GroundingMode
from engine.events import ClaimSupport
from engine.grounding.claims import (
    LIST_MARK,
    Sentence,
    prose_line_count,
    sentences,
    strip_markers,
    without_markers,
)
from engine.grounding.marker_as_fact import MARKER_AS_FACT, marker_stands_for_fact
from engine.grounding.names import code_names
from engine.grounding.score import ClaimScore, score_claim
from engine.sourcing.attribution import cite_sentence, content_words
from engine.sourcing.corroboration import names_every
from engine.terminal_text import terminal_safe

UNSUPPORTED_MARK = " _(unsupported by its sources)_"
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


def _cited_before(original: str) -> set[str]:
    """Sentences of the writer's report that carried a citation, as `without_markers` folds them."""
    return {without_markers(s.text) for s in sentences(original) if s.numbers}


def _claim(
    sentence: Sentence, sources: Mapping[int, str], registry: SourceRegistry
) -> ClaimSupport:
    cited = [n for n in sentence.numbers if n in sources]
    locators = list(dict.fromkeys(sources[n] for n in cited))
    passages = [p for locator in locators for p in registry.related_passages(locator)]
    verdict = score_claim(sentence.text, passages)
    return ClaimSupport(
        text=_claim_text(sentence),
        numbers=cited,
        sources=locators,
        score=verdict.score,
        status=verdict.status,
        # Quotes source text (a code name): stored and shown, so never a control sequence.
        reason=terminal_safe(verdict.reason),
        excerpt=terminal_safe(verdict.excerpt),
    )


def _marker_as_fact(sentence: Sentence, sources: Mapping[int, str]) -> ClaimSupport:
    """A sentence whose citation took the place of its fact: unsupported, whatever it cites."""
    cited = [n for n in sentence.numbers if n in sources]
    return ClaimSupport(
        text=_claim_text(sentence),
        numbers=cited,
        sources=list(dict.fromkeys(sources[n] for n in cited)),
        reason=MARKER_AS_FACT,
    )


def _claim_text(sentence: Sentence) -> str:
    return terminal_safe(sentence.text.strip()[:_MAX_CLAIM_CHARS])


def _is_statement(text: str) -> bool:
    """A sentence that states something: long enough, not a list's lead-in, not a question."""
    stripped = text.strip()
    return len(content_words(stripped)) >= MIN_STATEMENT_WORDS and not stripped.endswith((":", "?"))


def _uncited_claim(
    sentence: Sentence, sources: Mapping[int, str], registry: SourceRegistry
) -> ClaimSupport:
    """An uncited statement, scored against each of the report's sources: cited to the one
    that supports it, else unsupported.

    A source that never names what the sentence names (`FileHandler`, `wait_for`) is not
    offered: citing it would be the engine inventing a citation, as when "FileHandler writes
    log messages to a file" shares its other words with an SSL page's key-log file.
    """
    names = code_names(sentence.text)
    best: tuple[int, ClaimScore] | None = None
    for number, locator in sources.items():
        passages = registry.related_passages(locator)
        if names and not names_every(names, " ".join(passages)):
            continue
        verdict = score_claim(sentence.text, passages)
        if best is None or (_RANK[verdict.status], verdict.score) > (
            _RANK[best[1].status],
            best[1].score,
        ):
            best = (number, verdict)
    if best is not None and best[1].status == "supported":
        number, verdict = best
        return ClaimSupport(
            text=_claim_text(sentence),
            numbers=[number],
            sources=[sources[number]],
            score=verdict.score,
            status="supported",
            reason=ATTRIBUTED,
            excerpt=terminal_safe(verdict.excerpt),
        )
    # A cited sentence stays unless its source is shown not to support it; an uncited one
    # stays only when a source is shown to support it. Partial wording is not enough.
    weak = best is not None and best[1].status == "weak"
    return ClaimSupport(
        text=_claim_text(sentence),
        score=best[1].score if best is not None else 0.0,
        status="unsupported",
        reason=UNCITED_WEAK if weak else UNCITED,
    )


# Per line of the report, the edits to make: (start, end, replacement) spans of that line.
_Edits = dict[int, list[tuple[int, int, str]]]


def ground_report(
    report: str,
    *,
    original: str,
    sources: Mapping[int, str],
    registry: SourceRegistry,
    mode: GroundingMode,
    uncited: bool = True,
) -> GroundedReport:
    """Score `report`'s claims; remove or mark the unsupported ones as `mode` says.

    `sources` maps each citation number of `report` to the registry locator it stands for;
    `original` is the writer's text before verification (to find sentences that lost every
    citation there). With `uncited`, a statement that cites nothing is a claim too: cited to
    the source that supports it, else unsupported (a fact from the model's memory).
    """
    lost = _cited_before(original)
    claims: list[ClaimSupport] = []
    edits: _Edits = {}
    for sentence in sentences(report, set(sources)):
        if sentence.numbers and not _WORD.search(strip_markers(sentence.text)):
            # Markers standing alone ("… [1]. [1, 2, 3].") vouch for nothing: kept, they would
            # count sources as cited that no sentence rests on.
            if mode != "off":
                _edit(edits, sentence, "")
            continue
        if sentence.numbers and marker_stands_for_fact(sentence.text):
            claims.append(_enforced(_marker_as_fact(sentence, sources), sentence, mode, edits))
            continue
        claim = _sentence_claim(sentence, lost, sources, registry, uncited=uncited)
        if claim is None:
            continue
        if claim.numbers and not sentence.numbers and mode != "off":
            # An uncited statement a source supports: cited to that source.
            _edit(edits, sentence, cite_sentence(sentence.text, claim.numbers[0]))
        claims.append(_enforced(claim, sentence, mode, edits))
    if not edits:
        return GroundedReport(report, claims)
    text = _edited(report, edits)
    if any(claim.action == "removed" for claim in claims) and not _has_prose(text):
        # Say so, rather than hand over headings with nothing under them.
        text = f"{NOTHING_LEFT}\n\n{text}"
    return GroundedReport(text, claims)


def _sentence_claim(
    sentence: Sentence,
    lost: set[str],
    sources: Mapping[int, str],
    registry: SourceRegistry,
    *,
    uncited: bool,
) -> ClaimSupport | None:
    """The claim a sentence makes, scored; None for a sentence that claims nothing."""
    if sentence.numbers:
        return _claim(sentence, sources, registry)
    if without_markers(sentence.text) in lost:
        return ClaimSupport(text=_claim_text(sentence), reason=LOST_CITATIONS)
    if uncited and _is_statement(sentence.text):
        return _uncited_claim(sentence, sources, registry)
    return None


def _enforced(
    claim: ClaimSupport, sentence: Sentence, mode: GroundingMode, edits: _Edits
) -> ClaimSupport:
    """An unsupported claim removed (strict) or marked (mark), its edit queued; else as is."""
    if claim.status != "unsupported" or mode == "off":
        return claim
    if mode == "strict":
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
