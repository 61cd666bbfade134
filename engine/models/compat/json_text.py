"""Lenient JSON from model text: fences, prose around the object, trailing commas, quotes.

Small models wrap JSON in ```json fences or a sentence, leave trailing commas and sometimes
use Python literals (single quotes, True/None). Each repair is tried only after the strict
parse fails, so valid JSON is never rewritten.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _balanced_spans(text: str, opener: str, closer: str) -> list[str]:
    """Every top-level `opener…closer` span, skipping brackets inside strings."""
    spans: list[str] = []
    depth = 0
    start = -1
    index = 0
    while index < len(text):
        char = text[index]
        if char in "\"'" and depth:
            index = _string_end(text, index)
        elif char == opener:
            if depth == 0:
                start = index
            depth += 1
        elif char == closer and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
        index += 1
    return spans


def _string_end(text: str, start: int) -> int:
    """Where the string opened by the quote at `start` closes (the text's end if it never does);
    a backslash escapes the character after it."""
    quote = text[start]
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
        elif char == quote:
            return index
        else:
            index += 1
    return len(text)


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except ValueError:
        pass
    repaired = _TRAILING_COMMA.sub(r"\1", candidate)
    try:
        return json.loads(repaired)
    except ValueError:
        pass
    try:
        # Python-literal style ({'a': True}); literal_eval evaluates no code.
        value = ast.literal_eval(repaired)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("not JSON") from None
    if isinstance(value, dict | list):
        return value
    raise ValueError("not JSON")


def json_candidates(text: str) -> list[str]:
    """Substrings of `text` that may hold a JSON object, most likely first."""
    stripped = text.strip()
    candidates = [stripped]
    candidates += [block.strip() for block in _FENCE.findall(text)]
    candidates += _balanced_spans(text, "{", "}")
    candidates += _balanced_spans(text, "[", "]")
    seen: set[str] = set()
    unique = []
    for candidate in candidates:
        if candidate and candidate not in seen:
            seen.add(candidate)
            unique.append(candidate)
    return unique


def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object found in `text`; raises `ValueError` naming what was wrong."""
    if not text.strip():
        raise ValueError("the reply was empty")
    for candidate in json_candidates(text):
        try:
            value = _loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
            return value[0]
    raise ValueError("the reply held no JSON object")


def _structure(text: str, start: int) -> Iterator[tuple[int, str]]:
    """Each bracket and comma of `text` from `start` on, outside strings, with its offset."""
    index = start
    while 0 <= index < len(text):
        char = text[index]
        if char == '"':
            index = _string_end(text, index)
        elif char in "{}[],":
            yield index, char
        index += 1


def closed_cut_object(text: str) -> dict[str, Any] | None:
    """The JSON object a reply cut off mid-way holds so far: cut back to its last complete
    value and closed (None when it has none).

    A reply ended at its token cap, or stopped once it had said enough, leaves an object open
    (`{"claims": [{…}, {…}, {"text": "The def`). Everything before the last complete value is
    as the model meant it, so that part is the answer; asking again would cost the whole reply.
    """
    start = text.find("{")
    # Where the text may end, and the closers it then needs. Never inside an object nested
    # in the reply's own: a claim without its ids, or a track without its queries, is no value.
    cuts: list[tuple[int, str]] = []
    openers: list[str] = []
    for index, char in _structure(text, start):
        if char in "{[":
            openers.append(char)
            continue
        if char != ",":
            if openers:
                openers.pop()
            if not openers:
                break  # the object closed: what follows in it is the model's own mistake
        if "{" not in openers[1:]:
            cuts.append((index if char == "," else index + 1, _closers(openers)))
    for end, closers in reversed(cuts):
        try:
            value = _loads(text[start:end] + closers)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _closers(openers: list[str]) -> str:
    return "".join("}" if opener == "{" else "]" for opener in reversed(openers))


def array_objects_closed(text: str) -> int:
    """How many objects inside an array the JSON text so far has closed (`{"claims": [{…},
    {…}, {"te` → 2): a streamed list's items, counted while the reply is still coming."""
    closed = 0
    openers: list[str] = []
    for _, char in _structure(text, text.find("{")):
        if char in "{[":
            openers.append(char)
        elif char in "}]" and openers:
            opener = openers.pop()
            closed += opener == "{" and bool(openers) and openers[-1] == "["
    return closed
