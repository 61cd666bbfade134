"""An eval dataset: JSON Lines of questions with the facts and sources a right answer has.

    {"id": "q01", "question": "...", "expected": {"facts": ["regex", ...],
     "sources": ["document key or URL pattern", ...]}}

`expected` is optional (such a question is run and timed, not scored). Fact patterns are
regular expressions matched case-insensitively against the report's prose; a source is a
document key (`json.html`, matched as the key or its last path part) or a regular expression
matched against a cited URL.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")


class DatasetError(ValueError):
    """A dataset line that cannot be used; the message names the file and the line."""


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    question: str
    facts: tuple[re.Pattern[str], ...] = ()
    sources: tuple[str, ...] = ()
    scored: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def _patterns(values: object, where: str) -> tuple[re.Pattern[str], ...]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise DatasetError(f"{where}: expected.facts must be a list of regular expressions")
    compiled = []
    for value in values:
        try:
            compiled.append(re.compile(value, re.IGNORECASE))
        except re.error as exc:
            raise DatasetError(f"{where}: fact pattern {value!r} is not a regex ({exc})") from None
    return tuple(compiled)


def _question(raw: object, where: str) -> EvalQuestion:
    if not isinstance(raw, dict):
        raise DatasetError(f"{where}: each line must be a JSON object")
    ident, question = raw.get("id"), raw.get("question")
    if not isinstance(ident, str) or not _ID.fullmatch(ident) or ident == "summary":
        raise DatasetError(
            f"{where}: 'id' must be letters, digits, '-' or '_' (it names the result file), "
            "and not 'summary'"
        )
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(f"{where}: 'question' must be a non-empty string")
    expected = raw.get("expected")
    if expected is None:
        return EvalQuestion(ident, question.strip())
    if not isinstance(expected, dict):
        raise DatasetError(f"{where}: 'expected' must be an object of facts and sources")
    sources = expected.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise DatasetError(f"{where}: expected.sources must be a list of strings")
    extra = {k: v for k, v in raw.items() if k not in ("id", "question", "expected")}
    facts = _patterns(expected.get("facts", []), where)
    return EvalQuestion(ident, question.strip(), facts, tuple(sources), True, extra)


def load_dataset(path: Path) -> list[EvalQuestion]:
    """The questions of `path`, in order; a bad line is a DatasetError naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot be read ({exc})") from None
    questions: list[EvalQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}, line {number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{where}: not JSON ({exc.msg})") from None
        question = _question(raw, where)
        if question.id in seen:
            raise DatasetError(f"{where}: id {question.id!r} is used twice")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise DatasetError(f"{path}: no questions")
    return questions
