"""The judge's rubric: what it is asked, and how its grades are read back.

Four dimensions, each a whole number from 1 to 10 with the judge's reason: comprehensiveness,
insight, instruction following and readability (the dimensions DeepResearch Bench's RACE
scorer uses). The prompt names every band of the scale, so a score means the same thing
from one report to the next.

Reading is lenient about form and strict about values. Small models wrap the JSON in prose
or a code fence, rename the keys ("Instruction Following", "insightfulness"), flatten the
object (`"insight": 7, "insight_reason": "…"`), list the grades, or write no JSON at all
("**Readability: 8/10** – clear headings"); all of these are read. A score that is not a
number from 1 to 10 (0, 11, "80/100", true) is never clamped into range: that dimension is
reported missing, with what was wrong, like a dimension the reply left out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.models.compat.json_text import parse_json_object

DIMENSIONS = ("comprehensiveness", "insight", "instruction_following", "readability")
LABELS = {
    "comprehensiveness": "Comprehensiveness",
    "insight": "Insight",
    "instruction_following": "Instruction following",
    "readability": "Readability",
}
SCORE_MIN, SCORE_MAX = 1, 10
VERDICT_NAME = "ReportGrades"

# What each dimension asks, and its bands from 1-2 to 9-10.
RUBRIC: dict[str, tuple[str, tuple[str, str, str, str, str]]] = {
    "comprehensiveness": (
        "Does the report cover every part of the question, with the facts, figures and "
        "details a reader needs?",
        (
            "misses the question or answers none of it",
            "touches the question but leaves out major parts",
            "answers the main part; thin or silent on the rest",
            "covers every part with supporting detail",
            "complete and thorough: nothing a reader needs is missing",
        ),
    ),
    "insight": (
        "Does the report go beyond restating its sources: explain why and how, compare, "
        "draw conclusions, say where the evidence stops?",
        (
            "quotes or lists with no analysis at all",
            "mostly restates sources; the analysis is shallow or generic",
            "some explanation, few conclusions of its own",
            "explains causes and trade-offs and draws sound conclusions",
            "sharp, well-supported analysis a reader would not find in any one source",
        ),
    ),
    "instruction_following": (
        "Does the report answer the question actually asked, in the form asked (its scope, "
        "its constraints, a comparison or a number when one is asked for), without drifting?",
        (
            "answers a different question",
            "partly on topic; ignores what the question asks for",
            "answers the question but ignores part of its scope or form",
            "answers what was asked, in the form asked, with minor drift",
            "exactly what was asked, nothing missing, nothing off topic",
        ),
    ),
    "readability": (
        "Is the report clear: sections in a sensible order, headings that say what follows, "
        "fluent sentences, no repetition or fragments, citations that do not get in the way?",
        (
            "hard to follow: fragments, repetition or no structure",
            "readable in places; poor structure or much repetition",
            "understandable, with awkward sentences or structure",
            "clear structure and fluent prose, small blemishes",
            "a pleasure to read: clear, concise and well organised",
        ),
    ),
}
BANDS = ("1-2", "3-4", "5-6", "7-8", "9-10")

# The JSON the judge is asked for: per dimension the reason first (so the score follows from
# it), then the score. Flat and without $ref, so small models and grammar builders read it.
_GRADE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "score": {"type": "integer", "minimum": SCORE_MIN, "maximum": SCORE_MAX},
    },
    "required": ["reason", "score"],
}
VERDICT_SCHEMA: dict[str, Any] = {
    "title": VERDICT_NAME,
    "description": "A grade from 1 to 10 with its reason for each dimension of the rubric.",
    "type": "object",
    "properties": {name: _GRADE_SCHEMA for name in DIMENSIONS},
    "required": list(DIMENSIONS),
}


def system_prompt() -> str:
    """The judge's instructions: the task, the rubric and the reply's shape."""
    lines = [
        "You grade research reports. Read the question and the report, then grade the report "
        f"on four dimensions, each with a whole number from {SCORE_MIN} to {SCORE_MAX}, using "
        "the rubric below. Judge only what the report says: do not reward length or a "
        "confident tone, and a report that quotes sources but does not answer the question "
        "scores low. Use the whole scale: 5 is an ordinary report, 9 and 10 are rare.",
        "",
        "Rubric:",
    ]
    for name in DIMENSIONS:
        asks, bands = RUBRIC[name]
        lines.append(f"{name} ({LABELS[name]}): {asks}")
        lines += [f"  {band}: {text}" for band, text in zip(BANDS, bands, strict=True)]
    lines += [
        "",
        "For each dimension write the reason first, then the score. A reason is one or two "
        "sentences about this report: name what it says, gets wrong or leaves out; do not "
        "repeat the rubric's words. Reply with one JSON object: "
        '{"comprehensiveness": {"reason": "<about this report>", "score": <1 to 10>}, '
        '"insight": {...}, "instruction_following": {...}, "readability": {...}}',
    ]
    return "\n".join(lines)


def user_prompt(question: str, report: str) -> str:
    """The question and the report to grade."""
    return (
        f"Question:\n{question.strip()}\n\n"
        f"Report:\n--- report start ---\n{report.strip()}\n--- report end ---\n\n"
        "Grade this report on comprehensiveness, insight, instruction_following and "
        "readability."
    )


def correction_prompt(problems: list[str]) -> str:
    """What the judge is told when its reply could not be read whole."""
    listed = "; ".join(problems[:6]) or "no grades could be read"
    return (
        f"Your previous reply could not be used: {listed}. Reply again with only the JSON "
        f"object: for each of {', '.join(DIMENSIONS)}, a reason and a whole-number score from "
        f"{SCORE_MIN} to {SCORE_MAX}."
    )


# ---- reading the judge's reply ------------------------------------------------------------


@dataclass(frozen=True)
class Grade:
    """One dimension as the judge gave it: a valid score or None, and why not."""

    score: int | None = None
    reason: str = ""
    problem: str = ""


@dataclass
class Verdict:
    grades: dict[str, Grade] = field(default_factory=dict)

    def grade(self, name: str) -> Grade:
        return self.grades.get(name) or Grade(problem=f"{name}: no score")

    @property
    def scores(self) -> dict[str, int | None]:
        return {name: self.grade(name).score for name in DIMENSIONS}

    @property
    def reasons(self) -> dict[str, str]:
        return {name: self.grade(name).reason for name in DIMENSIONS}

    @property
    def complete(self) -> bool:
        return all(score is not None for score in self.scores.values())

    @property
    def any_score(self) -> bool:
        return any(score is not None for score in self.scores.values())

    @property
    def problems(self) -> list[str]:
        """What kept a dimension from a score, one entry per missing dimension."""
        return [self.grade(name).problem for name in DIMENSIONS if self.grade(name).score is None]

    @property
    def notes(self) -> list[str]:
        """Scores given without a reason, or with a reason that only restates the rubric."""
        notes = []
        for name in DIMENSIONS:
            grade = self.grade(name)
            if grade.score is None:
                continue
            if not grade.reason:
                notes.append(f"{name}: no reason given")
            elif restates_rubric(name, grade.reason):
                notes.append(f"{name}: the reason restates the rubric, not the report")
        return notes


_WORD = re.compile(r"[a-z0-9]+")
# A reason whose words are nearly all the rubric's says nothing about the report (small
# models echo the question they were asked: "The report covers every part of the question").
RESTATED_SHARE = 0.75


def restates_rubric(name: str, reason: str) -> bool:
    words = _WORD.findall(reason.lower())
    if len(words) < 6:
        return False
    asks, bands = RUBRIC[name]
    rubric = set(_WORD.findall(" ".join((asks, *bands)).lower()))
    stems = {word[:5] for word in rubric}
    known = sum(word in rubric or word[:5] in stems for word in words)
    return known / len(words) >= RESTATED_SHARE


def merge(earlier: Verdict, later: Verdict) -> Verdict:
    """Per dimension the later grade when it has a score, else the earlier one's."""
    grades = {}
    for name in DIMENSIONS:
        newer, older = later.grade(name), earlier.grade(name)
        grades[name] = newer if newer.score is not None or older.score is None else older
    return Verdict(grades)


_SCORE_TEXT = re.compile(
    r"^\s*(?P<value>[+-]?\d+(?:\.\d+)?)\s*(?:(?:/|out\s+of|of)\s*(?P<scale>\d+(?:\.\d+)?))?",
    re.IGNORECASE,
)
_SCORE_KEYS = ("score", "rating", "grade", "value", "points", "mark")
_REASON_KEYS = (
    "reason",
    "reasons",
    "reasoning",
    "justification",
    "explanation",
    "rationale",
    "comment",
    "comments",
    "feedback",
)
_SCORE_SUFFIXES = tuple(f"_{key}" for key in _SCORE_KEYS)
_REASON_SUFFIXES = tuple(f"_{key}" for key in _REASON_KEYS)
_WRAPPERS = ("scores", "grades", "ratings", "evaluation", "dimensions", "criteria", "rubric")


def _canonical_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.lower()).strip("_")


def dimension_of(key: str) -> str | None:
    """The dimension a key names, however the judge spelt it (None: not a dimension)."""
    words = _canonical_key(key)
    if "instruction" in words or "follow" in words or "adheren" in words:
        return "instruction_following"
    if "comprehens" in words or "complete" in words or "coverage" in words:
        return "comprehensiveness"
    if "insight" in words or "depth" in words or "analysis" in words:
        return "insight"
    if "readab" in words or "clarity" in words or "legib" in words or "writing" in words:
        return "readability"
    return None


def read_score(value: Any) -> tuple[int | None, str]:
    """A score from 1 to 10, or None and what is wrong with the value."""
    if isinstance(value, bool) or value is None:
        return None, "no score" if value is None else f"score {value!r} is not a number"
    if isinstance(value, int | float):
        number = float(value)
        shown = f"{value!r}"
    elif isinstance(value, str):
        match = _SCORE_TEXT.match(value)
        if match is None:
            return None, f"score {value[:40]!r} is not a number"
        number, shown = float(match["value"]), repr(value.strip()[:40])
        scale = match["scale"]
        if scale is not None and float(scale) != SCORE_MAX:
            return None, f"score {shown} is not on the {SCORE_MIN}-{SCORE_MAX} scale"
    else:
        return None, f"score {str(value)[:40]!r} is not a number"
    if not math.isfinite(number) or not SCORE_MIN <= number <= SCORE_MAX:
        return None, f"score {shown} is outside {SCORE_MIN}-{SCORE_MAX}"
    # Half points round up (7.5 → 8): the scale is whole numbers.
    return math.floor(number + 0.5), ""


def _reason_text(value: Any) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(" ".join(item.split()) for item in value)
    return ""


def _first(mapping: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {_canonical_key(str(key)): value for key, value in mapping.items()}
    for key in keys:
        if key in lowered:
            return lowered[key]
    return None


def _unwrapped(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The mapping that holds the dimensions: through `{"ReportGrades": {...}}`,
    `{"scores": {...}, "reasons": {...}}` and lists of `{"dimension", "score", "reason"}`."""
    for _ in range(3):
        if any(dimension_of(str(key)) for key in data):
            return data
        inner: dict[str, Any] = {}
        wrappers = set()
        for key, value in data.items():
            words = _canonical_key(str(key))
            if isinstance(value, list):
                inner.update(_from_list(value))
                wrappers.add(key)
            elif isinstance(value, Mapping) and (words in _WRAPPERS or len(data) == 1):
                inner.update(value)
                wrappers.add(key)
        if not inner:
            return data
        data = {**inner, **{key: value for key, value in data.items() if key not in wrappers}}
    return data


def _from_list(items: list[Any]) -> dict[str, Any]:
    """`[{"dimension": "insight", "score": 7, "reason": "…"}, …]` as a mapping."""
    mapped: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        name = _first(item, ("dimension", "name", "criterion", "category", "aspect", "metric"))
        if isinstance(name, str):
            mapped[name] = item
    return mapped


def _from_mapping(data: Mapping[str, Any]) -> Verdict:
    data = _unwrapped(data)
    reasons = _block_reasons(data)
    scores: dict[str, Any] = {}
    for key, value in data.items():
        words = _canonical_key(str(key))
        name = dimension_of(words)
        if name is None:
            continue
        if words.endswith(_REASON_SUFFIXES):
            _add_reason(reasons, name, value)
        elif isinstance(value, Mapping):
            scores.setdefault(name, _first(value, _SCORE_KEYS))
            _add_reason(reasons, name, _first(value, _REASON_KEYS))
        else:
            scores.setdefault(name, value)  # a flat `"insight": 7` or `"insight_score": 7`
    return Verdict({name: _grade(name, scores, reasons) for name in DIMENSIONS})


def _block_reasons(data: Mapping[str, Any]) -> dict[str, str]:
    """The reasons of a separate block: `{"reasons": {"insight": "…", …}}`."""
    reasons: dict[str, str] = {}
    block = _first(data, ("reasons", "reasoning", "justifications", "explanations"))
    if isinstance(block, Mapping):
        for key, value in block.items():
            name = dimension_of(str(key))
            if name:
                _add_reason(reasons, name, value)
    return reasons


def _add_reason(reasons: dict[str, str], name: str, value: Any) -> None:
    """Keep `value` as the reason for `name` unless it has one, or `value` is no text."""
    text = _reason_text(value)
    if text:
        reasons.setdefault(name, text)


def _grade(name: str, scores: Mapping[str, Any], reasons: Mapping[str, str]) -> Grade:
    reason = reasons.get(name, "")
    if name not in scores:
        return Grade(reason=reason, problem=f"{name}: no score")
    score, problem = read_score(scores[name])
    return Grade(score, reason, f"{name}: {problem}" if problem else "")


# The names a judge writing prose gives the dimensions.
_NAMES = (
    r"comprehensiveness|completeness|coverage|insight(?:fulness)?|depth"
    r"|instructions?[ _-]*following|following[ _-]+(?:the[ _-]+)?instructions"
    r"|instruction[ _-]+adherence|readability|clarity"
)
_NUMBER = r"[+-]?\d+(?:\.\d+)?(?:\s*(?:/|out\s+of)\s*\d+)?"
# A name and, within a short gap, its score: "**Insight: 6/10**", "Readability - score 8 out
# of 10", "Comprehensiveness (7)".
_SCORED_NAME = re.compile(
    rf"\b(?P<name>{_NAMES})\b[\W_]{{0,6}}?(?:(?:score|rating|grade)[\W_]{{0,4}}?)?"
    rf"(?P<score>{_NUMBER})",
    re.IGNORECASE,
)
# A name that heads a line ("### Insight", "2. Readability:"), its score later in the section.
_HEADING = re.compile(rf"^[\s#>*_\d.)-]*(?P<name>{_NAMES})\b[\W_]*", re.IGNORECASE | re.MULTILINE)
_SECTION_SCORE = re.compile(
    rf"(?:\b(?:score|rating|grade)\b[\W_]{{0,4}}(?P<a>{_NUMBER})"
    r"|(?P<b>[+-]?\d+(?:\.\d+)?\s*(?:/|out\s+of)\s*\d+))",
    re.IGNORECASE,
)


def _clean_reason(text: str) -> str:
    text = re.sub(r"^[\s*_:.,;)\]–—-]+", "", text.replace("**", ""))
    text = re.sub(r"[\s#*_-]+$", "", text)
    return " ".join(text.split())


def _from_prose(text: str) -> Verdict:
    """Grades written as prose or Markdown instead of JSON."""
    # name -> (anchor start, where the reason starts, score text or None)
    anchors: dict[str, tuple[int, int, str | None]] = {}
    for match in _SCORED_NAME.finditer(text):
        name = dimension_of(match["name"])
        if name is not None and name not in anchors:
            anchors[name] = (match.start(), match.end(), match["score"])
    for match in _HEADING.finditer(text):
        name = dimension_of(match["name"])
        if name is not None and name not in anchors:
            anchors[name] = (match.start(), match.end(), None)
    ordered = sorted(anchors.items(), key=lambda item: item[1][0])
    grades: dict[str, Grade] = {}
    for index, (name, (_start, body, score_text)) in enumerate(ordered):
        stop = ordered[index + 1][1][0] if index + 1 < len(ordered) else len(text)
        section = text[body:stop]
        if score_text is None:
            found = _SECTION_SCORE.search(section)
            if found is not None:
                score_text = found["a"] or found["b"]
                section = section[: found.start()] + section[found.end() :]
        if score_text is None:
            grades[name] = Grade(reason=_clean_reason(section), problem=f"{name}: no score")
            continue
        score, problem = read_score(score_text)
        grades[name] = Grade(score, _clean_reason(section), f"{name}: {problem}" if problem else "")
    for name in DIMENSIONS:
        grades.setdefault(name, Grade(problem=f"{name}: no score"))
    return Verdict(grades)


def read_verdict(reply: Mapping[str, Any] | str | None) -> Verdict:
    """The grades in a judge's reply: a parsed JSON object, or the reply's text."""
    if isinstance(reply, Mapping):
        return _from_mapping(reply)
    if not isinstance(reply, str) or not reply.strip():
        return Verdict({name: Grade(problem=f"{name}: no score") for name in DIMENSIONS})
    try:
        verdict = _from_mapping(parse_json_object(reply))
    except ValueError:
        return _from_prose(reply)
    return verdict if verdict.any_score else merge(verdict, _from_prose(reply))
