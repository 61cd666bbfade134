"""Numbered inline citation markers, in every style real models write them.

`[1]`, `[1, 3]`, `[1-3]`, `[^1]`, `［6］`, `【7】`, `【1†L2-L4】` (browsing style), `(Source 1)`,
`(Sources 1, 2)`, `[Source 1]` and Unicode superscripts after a word (`…threads¹²`). Each
marker yields the numbers it cites; the sources list says what the numbers mean. Markers that
name their source instead of numbering it live in `engine.citations.inline`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import NamedTuple

from engine.citations.scanning import Token, code_tokens, merge_tokens

_NUMBER = r"\d{1,4}"
# Possessive (`*+`, `?+`): what follows an item (a separator or a closing bracket) can never
# start inside it, so giving characters back cannot help a match; not keeping the places to
# give back makes scanning a report's markers a third faster.
_ITEM = rf"\^?{_NUMBER}+(?:\s*+[-–]\s*+\^?{_NUMBER}+)?+"
_ITEM_LIST = rf"{_ITEM}(?:\s*+[,;]\s*+{_ITEM})*+"
# In the wordy style the items may repeat the word and be joined by "and": `(Sources 1 and 3)`.
_WORD = r"(?i:sources?|refs?\.?|references?|citations?)"
_WORD_ITEM = rf"(?:{_WORD}\s*)?(?:#|(?i:no)\.?\s*)?{_ITEM}"
_WORD_LIST = rf"{_WORD_ITEM}(?:\s*(?:[,;&]|,?\s+(?i:and))\s*{_WORD_ITEM})*"

SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_TO_ASCII = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")
_FROM_ASCII = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)
_SUP = f"[{SUPERSCRIPT_DIGITS}]"
# A superscript cites only right after a letter or punctuation, never after a digit (`10²`);
# `_superscript_in_citation_place` rules out the rest of mathematics and units.
_SUPERSCRIPT_PATTERN = (
    rf"(?<=[^\W\d_{SUPERSCRIPT_DIGITS}]|[.,;:!?)\]\"'”’*])"
    rf"(?P<m_sup>{_SUP}+(?:[,˒⁻\-–]{_SUP}+)*)(?![\w{SUPERSCRIPT_DIGITS}])"
)

_STYLE_PATTERNS = {
    # `[n]` not followed by `(` (that is a Markdown link whose text is a number).
    "bracket": rf"\[[ \t]*+(?P<m_ascii>{_ITEM_LIST})[ \t]*+\](?!\()",
    "wide": rf"［(?P<m_wide>{_ITEM_LIST})］",
    "lenticular": rf"【(?P<m_lenticular>{_ITEM_LIST})】",
    # OpenAI browsing citations: the number, a dagger, then a line range or a label.
    "browse": rf"【(?P<m_browse>{_NUMBER})†[^】\n]{{0,200}}】",
    "word": rf"(?P<w_open>[(\[])[ \t]*{_WORD}[ \t]*:?[ \t]*(?P<m_word>{_WORD_LIST})[ \t]*[)\]]",
    "superscript": _SUPERSCRIPT_PATTERN,
}
_BODY_GROUPS = {
    "bracket": "m_ascii",
    "wide": "m_wide",
    "lenticular": "m_lenticular",
    "browse": "m_browse",
    "word": "m_word",
    "superscript": "m_sup",
}
_STYLE_RES = {style: re.compile(pattern) for style, pattern in _STYLE_PATTERNS.items()}
# Cheap tests that let a scan skip a style's regex on text that cannot contain it.
_STYLE_HINTS = {
    "bracket": "[",
    "wide": "［",
    "lenticular": "【",
    "browse": "†",
}
# One regex per opening bracket: a search finds a literal first character much faster than a
# set of them.
_WORD_HINT_RES = tuple(re.compile(rf"\{opener}[ \t]*(?i:source|ref|citation)") for opener in "([")

# One alternation of every style, for callers that embed markers in a larger pattern (sentence
# splitting). Scanning uses the per-style regexes, which are much faster on long text.
MARKER_PATTERN = "|".join(f"(?:{pattern})" for pattern in _STYLE_PATTERNS.values())

_RANGE_RE = re.compile(rf"\^?({_NUMBER})(?:\s*[-–]\s*\^?({_NUMBER}))?")
_SUP_RANGE_RE = re.compile(r"(\d+)(?:[⁻\-–](\d+))?")
# A short word after a number or a free-standing operator is a unit or a variable: `10 km²`.
_UNIT_CONTEXT_RE = re.compile(r"(?:\d|(?:^|\s)[=+*/^])\s*([^\W\d_]{1,3})$")

# Bracketed four-digit numbers in this range read as years (`[2024]`), not citations, unless
# the sources list really has an entry with that number.
_YEAR_RANGE = range(1000, 3000)
# A range marker wider than this is not a citation (`[1-5000]` is a page span or a dataset).
_MAX_RANGE_SPAN = 100
# Styles kept exactly as written when their numbers do not change.
BRACKET_STYLES = frozenset({"bracket", "wide", "lenticular"})


class InlineMarker(NamedTuple):
    """One inline citation marker: its span in the text and the numbers it cites, in order."""

    start: int
    end: int
    text: str
    numbers: tuple[int, ...]
    footnote: bool = False
    style: str = "bracket"


def _expand(low: int, high: int, numbers: list[int]) -> bool:
    if high < low or high - low > _MAX_RANGE_SPAN:
        return False
    numbers.extend(range(low, high + 1))
    return True


def _superscript_numbers(body: str, known: Collection[int] | None) -> list[int] | None:
    """Numbers of a superscript run: `¹²` is 12 when 12 is listed, else 1 and 2 when both are."""
    numbers: list[int] = []
    for item in _SUP_RANGE_RE.finditer(body.translate(_TO_ASCII)):
        low_text, high_text = item.group(1), item.group(2)
        if high_text is not None:
            if not _expand(int(low_text), int(high_text), numbers):
                return None
        elif known is not None and int(low_text) not in known and len(low_text) > 1:
            digits = [int(digit) for digit in low_text]
            numbers.extend(digits if all(d in known for d in digits) else [int(low_text)])
        else:
            numbers.append(int(low_text))
    return numbers


def marker_numbers(
    body: str, known_numbers: Collection[int] | None, style: str = "bracket"
) -> tuple[int, ...] | None:
    """The numbers a marker's body cites, in order without repeats; None if it is no marker."""
    numbers: list[int] = []
    if style == "superscript":
        found = _superscript_numbers(body, known_numbers)
        if found is None:
            return None
        numbers = found
    elif body.isdigit():
        numbers = [int(body)]  # `[12]`, the commonest marker, without splitting or the regex
    elif body.replace(",", "").replace(" ", "").isdigit():
        numbers = list(map(int, body.split(",")))  # `[3, 7]`
    else:
        for item in _RANGE_RE.finditer(body):
            low = int(item.group(1))
            if not _expand(low, int(item.group(2)) if item.group(2) else low, numbers):
                return None
    if len(numbers) == 1:
        return None if _is_year(numbers[0], known_numbers) else (numbers[0],)
    return tuple(dict.fromkeys(numbers)) or None


def _is_year(number: int, known_numbers: Collection[int] | None) -> bool:
    """True for a lone number that reads as a year (`[2024]`), not a citation."""
    return number in _YEAR_RANGE and (known_numbers is None or number not in known_numbers)


def _superscript_in_citation_place(text: str, start: int) -> bool:
    """False for units and formulas: `10 km²`, `E = mc²`, `x²`."""
    before = text[max(0, start - 24) : start]
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    if len(word) <= 1 or "=" in before[-8:] or "^" in word:
        return False
    return _UNIT_CONTEXT_RE.search(before) is None


def _style_tokens(text: str, style: str) -> list[Token]:
    hint = _STYLE_HINTS.get(style)
    if hint is not None and hint not in text:
        return []
    if style == "word" and not any(hint.search(text) for hint in _WORD_HINT_RES):
        return []
    if style == "superscript" and not any(char in text for char in SUPERSCRIPT_DIGITS):
        return []
    if style not in ("word", "superscript"):
        return [
            (match.start(), match.end(), style, match) for match in _STYLE_RES[style].finditer(text)
        ]
    tokens: list[Token] = []
    for match in _STYLE_RES[style].finditer(text):
        if style == "word" and (match.group("w_open") == "(") != (match.group(0)[-1] == ")"):
            continue
        if style == "superscript" and not _superscript_in_citation_place(text, match.start()):
            continue
        tokens.append((match.start(), match.end(), style, match))
    return tokens


def marker_tokens(text: str) -> list[Token]:
    """Candidate marker tokens of every style, unordered; kinds are style names."""
    tokens: list[Token] = []
    for style in _STYLE_PATTERNS:
        tokens.extend(_style_tokens(text, style))
    return tokens


def marker_from_token(token: Token, known_numbers: Collection[int] | None) -> InlineMarker | None:
    """The marker a token stands for, or None when its body cites nothing (a year, a span)."""
    read = token_numbers(token, known_numbers)
    if read is None:
        return None
    start, end, _, match = token
    numbers, style = read
    assert match is not None
    return InlineMarker(start, end, match.group(0), numbers, style == "footnote", style)


def token_numbers(
    token: Token, known_numbers: Collection[int] | None
) -> tuple[tuple[int, ...], str] | None:
    """The numbers and style of `marker_from_token(token)`, without building the marker.

    Rewriting prose reads every marker of a report this way, twice per check.
    """
    _, _, style, match = token
    group = _BODY_GROUPS.get(style)
    if match is None or group is None:
        return None
    body = match.group(group)
    if style != "superscript" and body.isdigit():
        number = int(body)  # `[12]`, the commonest marker
        return None if _is_year(number, known_numbers) else ((number,), style)
    if style != "superscript" and body.replace(",", "").replace(" ", "").isdigit():
        # `[3, 7]` and the like: read here, as `marker_numbers` would, without the call.
        numbers = tuple(map(int, body.split(",")))
        if len(numbers) == 2:
            return (numbers if numbers[0] != numbers[1] else numbers[:1]), style
        if len(numbers) > 1:
            return tuple(dict.fromkeys(numbers)), style
        return None if _is_year(numbers[0], known_numbers) else (numbers, style)
    read = marker_numbers(body, known_numbers, style)
    if read is None:
        return None
    return read, "footnote" if style == "bracket" and body.startswith("^") else style


def superscripts_cite(text: str, known_numbers: Collection[int] | None) -> bool:
    """True when the text uses superscripts as citations.

    It does when a superscript names a listed number, or when superscripts are its only
    numbered citations (no `[n]`-like marker anywhere). Otherwise superscripts are exponents
    and units, and are left alone. Superscripts after a digit, a one-letter word or a unit
    (`10²`, `x²`, `5 km²`, `E = mc²`) never count.
    """
    tokens = _style_tokens(text, "superscript")
    if not tokens:
        return False
    for token in tokens:
        marker = marker_from_token(token, known_numbers)
        if (
            known_numbers
            and marker is not None
            and all(number in known_numbers for number in marker.numbers)
        ):
            return True
    others = (token for style in _STYLE_PATTERNS if style != "superscript"
              for token in _style_tokens(text, style))  # fmt: skip
    return not any(marker_from_token(token, known_numbers) for token in others)


def find_inline_markers(
    text: str, known_numbers: Collection[int] | None = None, superscripts: bool | None = None
) -> list[InlineMarker]:
    """Inline citation markers in `text`, skipping code spans and Markdown link texts.

    `known_numbers` are the numbers the sources list defines; a bracketed year such as
    `[2024]` counts as a marker only when it is one of them. Superscripts count when
    `superscripts` says so; by default, when the text uses them as citations at all.
    """
    if superscripts is None:
        superscripts = superscripts_cite(text, known_numbers)
    markers: list[InlineMarker] = []
    for token in merge_tokens(code_tokens(text), marker_tokens(text)):
        if token[2] == "superscript" and not superscripts:
            continue
        marker = marker_from_token(token, known_numbers)
        if marker is not None:
            markers.append(marker)
    return markers


def render_numbers(numbers: Iterable[int], style: str = "bracket") -> str:
    """Numbers as a marker in `style`; every style but footnotes and superscripts is `[a, b]`."""
    if style == "footnote":
        return "".join(f"[^{number}]" for number in numbers)
    if style == "superscript":
        return ",".join(str(number).translate(_FROM_ASCII) for number in numbers)
    return "[" + ", ".join(map(str, numbers)) + "]"


def render_marker(marker: InlineMarker, numbers: Iterable[int]) -> str:
    """A marker citing `numbers`, in the marker's own style (footnote, superscript, bracket)."""
    return render_numbers(numbers, marker.style)
