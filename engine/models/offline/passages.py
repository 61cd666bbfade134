"""Reference pages read as entries: each sentence with the API entry or heading it belongs to.

Documentation pages are mostly lists of entries (`- class asyncio.Queue(maxsize=0) - A first
in, first out queue. ...`, `* historySize {number} Maximum number of history lines retained.
Default: 30.`). Indexed text flattens those lists onto one line, so a plain sentence splitter
sees one long "sentence" full of markup and quotes none of it. Here a passage is cut at its
list markers first; the head of each entry (a signature, or a name with its type) becomes the
label of the sentences under it, and a heading labels what follows it. Emphasis and code marks
(`*x*`, `**x**`, `_x_`, backticks) are dropped from the quoted words, nothing else is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.models.offline.text import split_sentences

# A list marker inside flattened text: a dash, star or bullet between spaces, not a minus
# or a multiplication (`16 * 1024`, `a - 1`).
_ITEM_MARK_RE = re.compile(r"(?:^|\s)[-*•]\s+(?=[^\s\d])")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>\S.*)$")
_STRONG_RE = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPHASIS_RE = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?)(?<=[^\s*])\*(?![\w*])")
_UNDERSCORE_RE = re.compile(r"(?<![\w])_(?=[^\s_])([^_\n]*?)(?<=[^\s_])_(?![\w])")
_BACKTICK_RE = re.compile(r"`+([^`\n]*)`+")
_LINK_RE = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]|\[([^\]\n]+)\]\([^)\n]*\)")
# Entry kinds that Sphinx prints before a name: `class`, `exception`, `coroutine`, ...
_KIND_WORDS = re.compile(
    r"^(?:(?:abstract|async|class|classmethod|coroutine|decorator|exception|method|"
    r"property|staticmethod|function|attribute|data|event|awaitable)\s+)+",
    re.I,
)
_TYPE_RE = re.compile(r"\{[^{}\n]{1,60}\}")
_RETURNS_TYPE_RE = re.compile(r"^Returns:\s*(?:\{[^{}\n]{1,60}\}\s*)+")
_NAME_WITH_TYPE_RE = re.compile(
    r"^(?P<name>[\w.$'\"\[\]()-]{1,60})\s+\{[^{}\n]{1,60}\}\s*(?P<rest>.*)$"
)
MAX_LABEL_CHARS = 100
_MAX_HEAD_WORDS = 14


@dataclass(frozen=True)
class LabelledSentence:
    """A sentence of a passage and the label of the entry (or section) it is under."""

    text: str
    label: str = ""
    # True when the label names an API entry (a signature or a name), not a section heading.
    entry: bool = False


def clean_markup(text: str) -> str:
    """The text without emphasis, strong, code and reference-link marks."""
    text = _LINK_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _BACKTICK_RE.sub(r"\1", text)
    text = _STRONG_RE.sub(r"\1", text)
    text = _EMPHASIS_RE.sub(r"\1", text)
    text = _UNDERSCORE_RE.sub(r"\1", text)
    return text


def _is_head(piece: str) -> bool:
    """Whether a list piece is an entry's head (a signature or a name), not prose."""
    words = piece.split()
    if not words or len(words) > _MAX_HEAD_WORDS or piece.rstrip()[-1:] in ".!?":
        return False
    first = _KIND_WORDS.sub("", piece).split()
    if not first or not re.match(r"^@?[A-Za-z_$][\w.$]*(?:\(|$)", first[0]):
        return False
    # One name alone, a signature (`name(`), or a name with its type (`name {integer}`).
    return len(first) == 1 or "(" in first[0] or bool(_TYPE_RE.search(piece))


def _names_api(heading: str) -> bool:
    """Whether a heading names an API entry (`os.loadavg()`, `Class: Options`), not a topic."""
    if not heading or not _is_head(heading):
        return False
    name = _KIND_WORDS.sub("", heading).split()[0]
    return bool(re.search(r"[.(_$]|[a-z][A-Z]", name))


def _label_of(head: str) -> str:
    label = _KIND_WORDS.sub("", " ".join(head.split())).strip(" -:")
    label = _TYPE_RE.sub("", label).strip()
    if len(label) > MAX_LABEL_CHARS and "(" in label:
        label = label.split("(", 1)[0] + "()"
    return label[:MAX_LABEL_CHARS]


def _pieces(block: str) -> list[str]:
    """A flattened block cut at its list markers."""
    flat = " ".join(block.split())
    parts = _ITEM_MARK_RE.split(flat)
    return [part.strip() for part in parts if part and part.strip()]


def labelled_sentences(passage: str) -> list[LabelledSentence]:
    """Every sentence of a passage with the entry or heading it belongs to, markup dropped."""
    found: list[LabelledSentence] = []
    heading = ""
    for block in re.split(r"\n\s*\n", passage):
        lines = block.strip().splitlines()
        while lines and (match := _HEADING_RE.match(lines[0])):
            heading = clean_markup(match.group("text")).strip()
            lines = lines[1:]
        if not lines:
            continue
        label, entry = heading, _names_api(heading)
        if entry:
            label = _label_of(heading)
        for raw_piece in _pieces(clean_markup("\n".join(lines))):
            piece = _RETURNS_TYPE_RE.sub("", raw_piece).strip()
            typed = _NAME_WITH_TYPE_RE.match(piece)
            if typed and _is_head(f"{typed.group('name')} {{t}}"):
                label, entry = typed.group("name"), True
                piece = typed.group("rest")
            elif _is_head(piece):
                label, entry = _label_of(piece), True
                continue
            piece = _TYPE_RE.sub("", piece)
            for sentence in split_sentences(piece):
                found.append(LabelledSentence(sentence, label, entry))
    return found
