"""Reference pages read as entries: each sentence with the API entry or heading it belongs to.

Documentation pages are mostly lists of entries (`- class asyncio.Queue(maxsize=0) - A first
in, first out queue. ...`, `* historySize {number} Maximum number of history lines retained.
Default: 30.`). Indexed text flattens those lists onto one line, so a plain sentence splitter
sees one long "sentence" full of markup and quotes none of it. Here a passage is cut at its
list markers first; the head of each entry (a signature of any length, a name with its type,
a command-line option such as `-p, --pattern`) becomes the label of the sentences under it,
and a heading labels what follows it. A parameter (`cached_statements (int) – …`,
`historySize {number} …`) labels its own description and belongs to its entry, which labels
the text again from `Returns:` on. A table's rows are read as sentences under their first cell
(`ERROR: Numeric value 40.`), version notes that run into each other are cut apart, and an
entry's description that ends where the next entry starts ends with a full stop.

Emphasis and code marks (`*x*`, `**x**`, backticks) are dropped from the quoted words; `_x_`
is kept, as the text the quote is checked against has it. A list of numbers with a zero in it
(`[0, 0, 0]`) is quoted as code, never as citation marks. Nothing else is changed.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from engine.models.offline.text import LITERAL_LIST_RE, split_sentences, without_boilerplate
from engine.text.stopwords import QUESTION_STOPWORDS

# A list marker inside flattened text: a dash, star or bullet between spaces, not a minus
# or a multiplication (`16 * 1024`, `a - 1`).
# A plus is a list marker only where an item can start: first, or after a sentence or a label
# ends (`pip + setuptools` is a sum).
_ITEM_MARK_RE = re.compile(r"(?:^|\s)[-*•]\s+(?=[^\s\d])|(?:^|(?<=[.!?:])\s+)\+\s+(?=[^\s\d])")
# A sentence begins after a full stop and a capital (where a dash may join its clauses).
_SENTENCE_START_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_MIN_DASHED_WORDS = 5
# A word of prose, not a code name (`log.unixTime:`, `name(`).
_PLAIN_WORD_RE = re.compile(r"[a-z]+(?:\s|$)")
# A formula's other operators, before its star: `threshold = base threshold + scale factor *`.
_ARITHMETIC_RE = re.compile(r"\s[=+]\s")
# HTML that Markdown pages carry inline (`<a id="x"></a>`, `<code><b>x</b></code>`, `<sup>`):
# markup, not words. Only the tags of HTML's text-level and layout elements, so that a
# placeholder (`<name>`) or a generic type (`Promise<void>`) is left alone.
_HTML_TAG_RE = re.compile(
    r"</?(?:a|abbr|b|br|code|del|details|div|em|h[1-6]|i|img|ins|kbd|mark|p|pre|s|samp|small|"
    r"span|strong|sub|summary|sup|tt|u|var)(?:\s+[\w:-]+(?:\s*=\s*(?:\"[^\"\n]*\"|'[^'\n]*'|"
    r"[^\s>]+))?)*\s*/?>",
    re.I,
)
# A blockquote's marker, at a line's start or where a flattened quote's next line began
# (`> Deprecated: Use … > option with …`); never a comparison (`> 5`, `>=`).
_QUOTE_MARK_RE = re.compile(r"(?:^|(?<=\s))>(?:\s+|$)(?![\d=])", re.M)
_QUOTE_OPEN_RE = re.compile(r"(?:^|[.!?:)]\s+|\n\s*)>\s")
# An admonition's title inside a blockquote (`> ℹ️ Note:`, `> ⚠ Warning:`, `> **Important:**`):
# it opens a note of its own, so the text before it has ended.
_ADMONITION_RE = re.compile(
    r"(?:^|(?<=\s))>\s+(?:[^\sA-Za-z>]{1,3}\s*)?(?:\*\*)?(?:Note|Warning|Important|Tip|Caution|"
    r"Security|Info|Danger|Deprecated)(?:\*\*)?\s*:(?:\*\*)?\s*",
    re.I,
)
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>\S.*)$")
# Emphasis may run over a wrapped line (`*(in order of\nexecution)*`), never over a blank one.
_STRONG_RE = re.compile(r"\*\*(?=\S)((?:[^\n]|\n(?!\s*\n))+?)(?<=\S)\*\*")
# `*x*`, where x may hold a file pattern's star (`*pattern='test*.py'*`).
_EMPHASIS_RE = re.compile(
    r"(?<![\w*])\*(?=[^\s*])((?:[^*\n]|\n(?!\s*\n)|\*(?=\.\w))*?)(?<=[^\s*])\*(?![\w*]|\.\w)"
)
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
# A name with its type in parentheses, as Markdown reference pages head an option or a
# parameter: `messageKey (String)`, `redact (Array | Object):`, `paths (array): Required. …`.
_TYPE_WORD = (
    r"(?:[A-Z][\w.]*(?:\[\])?|\"[^\"\n]{1,20}\"|'[^'\n]{1,20}'|string|number|boolean|bool|"
    r"array|object|function|int|integer|float|str|bytes|list|dict|any|null|undefined|enum|"
    r"real|floating point|double|bigint)"
)
_PAREN_TYPE = rf"\(\s*{_TYPE_WORD}(?:\s*[|,/]\s*{_TYPE_WORD})*\s*\)"
_PAREN_HEAD_RE = re.compile(
    rf"^(?P<name>[A-Za-z_$][\w.$\[\]'\"()-]{{0,60}}?)\s+{_PAREN_TYPE}\s*:?\s*(?:\[[^\]\n]*\])?$"
)
_PAREN_PARAMETER_RE = re.compile(
    rf"^(?P<name>[A-Za-z_$][\w.$]{{0,60}})\s+{_PAREN_TYPE}\s*:\s+(?P<rest>\S.*)$"
)
# A name with its type written plainly, as Markdown API pages head an option once their bold
# and code marks are gone: `bodyTimeout number | null (optional)`, `url URL | string`,
# `maxConcurrentStreams: number`, `expires Date|number (optional)`. The name is code (it
# begins in lower case), the rest nothing but types.
_PLAIN_TYPE = (
    r"(?:[A-Z][\w.]*|string|number|boolean|bigint|symbol|null|undefined|object|function|any|"
    r"unknown|void|never|\"[^\"\n]{1,20}\"|'[^'\n]{1,20}'|\d+)(?:<[^<>\n]{1,40}>)?(?:\[\])*"
)
_PLAIN_TYPED_HEAD_RE = re.compile(
    rf"^(?P<name>[a-z_$][\w$]{{0,60}}):?\s+{_PLAIN_TYPE}(?:\s*[|&]\s*{_PLAIN_TYPE})*"
    r"(?:\s*\((?:optional|required|deprecated)\))?$"
)
# A list item headed by a code name and a colon: `pino.stdTimeFunctions.unixTime: Seconds since
# Unix epoch`, `maxRetries: Maximum number of retries.` (a dotted, camel-case or snake-case
# name, its description in a capital).
_CODE_LABEL_RE = re.compile(
    r"^(?P<name>[a-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[a-z_$][a-z0-9$]*(?:[A-Z_][\w$]*)+):\s+"
    r"(?P<rest>[A-Z].*)$"
)
# Bare links that open a piece (a list of references, `* https://…`, run into the paragraph
# after it once flattened): not part of the sentence that follows them.
_LEADING_URLS_RE = re.compile(r"^(?:<?https?://\S+>?\s+)+(?=[A-Z])")
# A whole signature, however many parameters it lists: `name(...)` and nothing after it.
_SIGNATURE_RE = re.compile(r"^@?[A-Za-z_$][\w.$]*\([^()]*(?:\([^()]*\)[^()]*)*\)$")
# A parameter in a Sphinx field list: `cached_statements (int) – The number of statements…`.
_PARAMETER_RE = re.compile(
    r"^(?P<name>[A-Za-z_][\w.]{0,60})\s*(?:\([^()\n]{1,60}\)\s*)?[–—]\s+(?P<rest>\S.*)$"
)
# What follows a parameter list belongs to the entry again: `Returns: …`, `Raises: …`.
_FIELD_RE = re.compile(r"^(?:Returns?|Return type|Raises|Yields|Throws):", re.I)
# A command-line option's head: `--json-lines`, `-p, --pattern pattern`.
_OPTION_NAME_RE = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_OPTION_HEAD_RE = re.compile(
    r"^(?:--?[A-Za-z][\w-]*(?:[ =][A-Za-z_<>\[\].-]+)?)"
    r"(?:,\s*--?[A-Za-z][\w-]*(?:[ =][A-Za-z_<>\[\].-]+)?)*$"
)
# An option's head in synopsis notation: it opens with the option, bracketed or not, and every
# word is a name, an option or a placeholder (`[-d] dbname [--dbname=]dbname`, `--index-version
# \\<n>`), never prose.
_BRACKETED_OPTION_RE = re.compile(r"^\[?--?[A-Za-z]")
# An option or a placeholder (`[-d]`, `dbname`, `[--dbname=]dbname`, `\\<n>`, `FILE`), never
# a word of prose (`Suppress`, `output.`).
_OPTION_WORD_RE = re.compile(r"[\[\]\\<>=|,\w-]+")
_PROSE_WORD_RE = re.compile(r"[A-Z][a-z]")
_MAX_OPTION_HEAD_WORDS = 6
_VERSION_NOTE_RE = re.compile(
    r"\b(?:New in version|Changed in version|Deprecated since version|Added in:?)\s+v?\d"
)
# A default value at the head of an entry's text, up to the sentence that follows it.
_DEFAULT_HEAD_RE = re.compile(
    r"^(?P<value>Default:\s+[^.!?]{1,80}?)\s+(?=(?:The|This|When|If|Defines|Sets|Set|You|A|An|"
    r"It|Used|Whether|Function|Enables?|Disables?)\s)"
)
# A Markdown table's header separator, flattened or not: `|---|:---:|`.
_TABLE_SEPARATOR_RE = re.compile(r"\|(?:\s*:?-{3,}:?\s*\|)+")
# What a fetch shows between the passages it picked from a long page.
ELISION = "[…]"
MAX_LABEL_CHARS = 100
_MAX_HEAD_WORDS = 14


@dataclass(frozen=True)
class LabelledSentence:
    """A sentence of a passage and the label of the entry (or section) it is under."""

    text: str
    label: str = ""
    # True when the label names an API entry (a signature or a name), not a section heading.
    entry: bool = False
    # The entry a parameter, option or table row belongs to (its label names the parameter).
    owner: str = ""
    # True when the text starts a sentence though it may begin in lower case (`asyncio queues
    # are …` once the page furniture before it is dropped).
    opens: bool = False


def clean_markup(text: str) -> str:
    """The text without emphasis, strong, code, inline HTML and reference-link marks."""
    text = _HTML_TAG_RE.sub(" ", text)
    text = _LINK_RE.sub(lambda m: m.group(1) or m.group(2), text)
    text = _BACKTICK_RE.sub(r"\1", text)
    text = LITERAL_LIST_RE.sub(lambda m: f"`{m.group(0).strip('`')}`", text)
    text = _STRONG_RE.sub(r"\1", text)
    text = _EMPHASIS_RE.sub(r"\1", text)
    return text


def _is_head(piece: str) -> bool:
    """Whether a list piece is an entry's head (a signature or a name), not prose."""
    words = piece.split()
    if not words or piece.rstrip()[-1:] in ".!?":
        return False
    if _PAREN_HEAD_RE.match(piece):
        # A definition list's term: `port (integer)`, its description the item after it.
        return True
    if len(words) > _MAX_HEAD_WORDS and not _SIGNATURE_RE.match(_KIND_WORDS.sub("", piece)):
        return False
    first = _KIND_WORDS.sub("", piece).split()
    if not first or not re.match(r"^@?[A-Za-z_$][\w.$]*(?:\(|$)", first[0]):
        return False
    # One name alone, a signature (`name(`), or a name with its type (`name {integer}`).
    return len(first) == 1 or "(" in first[0] or bool(_TYPE_RE.search(piece))


def _names_api(heading: str) -> bool:
    """Whether a heading names an API entry (`os.loadavg()`, `Class: Options`, a name with its
    type, `messageKey (String)`), not a topic."""
    if _PAREN_HEAD_RE.match(heading):
        return True
    if not heading or not _is_head(heading):
        return False
    name = _KIND_WORDS.sub("", heading).split()[0]
    return bool(re.search(r"[.(_$]|[a-z][A-Z]", name))


def _label_of(head: str) -> str:
    typed = _PAREN_HEAD_RE.match(head)
    if typed:
        return typed.group("name")
    label = _KIND_WORDS.sub("", " ".join(head.split())).strip(" -:")
    label = _TYPE_RE.sub("", label).strip()
    if len(label) > MAX_LABEL_CHARS and "(" in label:
        label = label.split("(", 1)[0] + "()"
    return label[:MAX_LABEL_CHARS]


def _pieces(block: str) -> list[str]:
    """A flattened block cut at its list markers; a dash inside a sentence is not one."""
    flat = " ".join(block.split())
    parts: list[str] = []
    start = 0
    for mark in _ITEM_MARK_RE.finditer(flat):
        before = flat[start : mark.start()].strip()
        marker = mark.group(0).strip()
        if marker == "-" and _dash_in_sentence(before, flat[mark.end() :]):
            continue
        if marker == "*" and _times_in_sentence(before, flat[mark.end() :]):
            continue
        parts.append(before)
        start = mark.end()
    parts.append(flat[start:])
    return [part.strip() for part in parts if part and part.strip()]


def _dash_in_sentence(before: str, after: str) -> bool:
    """Whether a spaced dash joins two clauses of one sentence ("… between copying and
    truncating - the truncate may occur …", "… improvement - even though …"): a sentence of
    words has begun before it, unfinished, and the words after it go on in lower case. A
    list of short lower-case items (`- cafile - resolved path …`) is still a list."""
    if not before or not after[:1].islower() or before[-1] in ".!?:;,":
        return False
    sentence = _SENTENCE_START_RE.split(before)[-1]
    return sentence[:1].isupper() and len(sentence.split()) >= _MIN_DASHED_WORDS


def _times_in_sentence(before: str, after: str) -> bool:
    """Whether a spaced star multiplies inside a sentence ("vacuum threshold = vacuum base
    threshold + vacuum scale factor * number of tuples where …"): as with a dash, words have
    run on unfinished before it and go on in lower case after it. A passage may begin inside
    the formula, so the sentence need not open with a capital, but it has the formula's other
    operators (`=`, `+`) before the star. A list of lower-case items (`* the cache is not
    shared * restart the server`) is still a list, and so is an item that opens with a code
    name (`* log.unixTime: …`) or follows an item's closing note (`(Default) * …`)."""
    if not re.search(r"\w$", before) or not _PLAIN_WORD_RE.match(after):
        return False
    sentence = _SENTENCE_START_RE.split(before)[-1]
    return len(sentence.split()) >= _MIN_DASHED_WORDS and bool(_ARITHMETIC_RE.search(sentence))


def _option_label(piece: str) -> str | None:
    """`-p, --pattern pattern` -> `-p, --pattern`: a command-line option's head, else None.
    A head that writes its optional parts in brackets or its value as a placeholder
    (`[-d] dbname [--dbname=]dbname`, `--index-version \\<n>`) is one too: nothing but code."""
    words = piece.split()
    if not _OPTION_HEAD_RE.match(piece) and not (
        _BRACKETED_OPTION_RE.match(piece)
        and any(mark in piece for mark in "[<=\\")
        and len(words) <= _MAX_OPTION_HEAD_WORDS
        and all(
            _OPTION_WORD_RE.fullmatch(word) and not _PROSE_WORD_RE.search(word) for word in words
        )
    ):
        return None
    return ", ".join(_OPTION_NAME_RE.findall(piece))


def _version_notes(piece: str) -> list[str]:
    """A piece cut before each version note it runs into ("… on PyPI Changed in version
    3.4: …"); a note followed by another one ends there, with a full stop if it had none."""
    starts = [m.start() for m in _VERSION_NOTE_RE.finditer(piece)]
    bounds = [0, *(start for start in starts if start > 0), len(piece)]
    parts = [piece[a:b].strip() for a, b in itertools.pairwise(bounds)]
    parts = [part for part in parts if part]
    for index, part in enumerate(parts[:-1]):
        if _VERSION_NOTE_RE.match(part) and part[-1] not in ".!?":
            parts[index] = part + "."
    return parts


def _table_rows(text: str) -> tuple[list[tuple[str, str]], str, str] | None:
    """The first table in flattened text: its rows as (first cell, the other cells under their
    headers), the text before it and the text after it; None when there is no table."""
    separator = _TABLE_SEPARATOR_RE.search(text)
    if separator is None:
        return None
    columns = separator.group(0).count("|") - 1
    row_re = re.compile(r"\s*\|" + r"([^|]*)\|" * columns)
    # A row may leave out its closing pipe (`| ERR_NETWORK | Network issue.` run into the next
    # row): its last cell then ends where the next row's first pipe begins.
    open_row_re = re.compile(r"\s*\|" + r"([^|]*)\|" * (columns - 1) + r"([^|]*)")
    header_start = text.rfind("|", 0, separator.start())
    for _ in range(columns):
        header_start = text.rfind("|", 0, header_start)
    header = row_re.match(text, max(header_start, 0))
    if header is None or text[header.end() : separator.start()].strip():
        return None
    names = [clean_markup(cell).strip() for cell in header.groups()]
    rows: list[tuple[str, str]] = []
    position = separator.end()
    while (row := _next_row(text, position, row_re, open_row_re)) is not None:
        cells = [" ".join(clean_markup(cell).split()).rstrip(".") for cell in row.groups()]
        position = row.end()
        described = [
            f"{name} {cell}".strip() for name, cell in zip(names[1:], cells[1:], strict=True)
        ]
        if cells[0] and all(cells[1:]):
            rows.append((cells[0], ", ".join(described) + "."))
    return rows, text[: header.start()], text[position:]


def _next_row(
    text: str, position: int, row_re: re.Pattern[str], open_row_re: re.Pattern[str]
) -> re.Match[str] | None:
    """The table row at `position`: closed by its pipe, or open when that pipe is the next
    row's first (`| A | Text. | B | More text. |`), or when it is the last row and has none."""
    row = row_re.match(text, position)
    if row is not None and (row.end() == len(text) or text[row.end() :].lstrip()[:1] == "|"):
        return row
    opened = open_row_re.match(text, position)
    if opened is None or (row is not None and open_row_re.match(text, opened.end()) is None):
        return row
    return opened


@dataclass
class _Reader:
    """Where the reading of a passage stands: the entry (or heading) that labels what follows,
    and the entry a parameter belongs to."""

    label: str = ""
    entry: bool = False
    owner: str = ""
    # The block's heading: what labels the text again after a parameter list with no entry.
    heading: str = ""

    def enter(self, label: str, *, entry: bool) -> None:
        self.label, self.entry, self.owner = label, entry, label if entry else ""

    def parameter(self, name: str) -> None:
        self.label, self.entry = name, True

    def back_to_owner(self) -> None:
        if self.owner:
            self.label, self.entry = self.owner, True
        else:
            self.label, self.entry = self.heading, False

    def sentence(self, text: str, *, opens: bool = False) -> LabelledSentence:
        owner = self.owner if self.owner != self.label else ""
        return LabelledSentence(text, self.label, self.entry, owner, opens)


def _default_first(piece: str) -> list[str]:
    """`Default: 100 You can set …` -> `Default: 100.`, `You can set …`: a default value that
    runs into the description after it (a list item with no full stop) is a sentence of its
    own."""
    match = _DEFAULT_HEAD_RE.match(piece)
    if match is None:
        return [piece]
    return [match.group("value").rstrip(" ,;") + ".", piece[match.end() :]]


def _prose(piece: str, reader: _Reader, *, followed: bool) -> list[LabelledSentence]:
    """The sentences of one list piece or paragraph, under the reader's label."""
    found: list[LabelledSentence] = []
    parts = [
        part for whole in _version_notes(_TYPE_RE.sub("", piece)) for part in _default_first(whole)
    ]
    for index, part in enumerate(parts):
        sentences = split_sentences(part)
        if sentences and reader.entry and (followed or index < len(parts) - 1):
            # A description in a list of entries ends where the next entry starts.
            last = sentences[-1]
            # Not after a word that needs more ("…, where"): that is a cut, not an end.
            if last[-1] not in ".!?:;," and last.split()[-1].lower() not in QUESTION_STOPWORDS:
                sentences[-1] = last + "."
        for sentence in sentences:
            text = without_boilerplate(sentence)
            if text is not None:
                found.append(reader.sentence(text, opens=text != sentence))
    return found


def _block_sentences(text: str, reader: _Reader) -> list[LabelledSentence]:
    found: list[LabelledSentence] = []
    table = _table_rows(text)
    if table is not None:
        rows, before, after = table
        found += _block_sentences(before, reader)
        for first, rest in rows:
            found.append(LabelledSentence(rest, first, True, reader.label))
        return found + _block_sentences(after, reader)
    pieces = _pieces(text)
    for number, raw_piece in enumerate(pieces):
        if _FIELD_RE.match(raw_piece):
            reader.back_to_owner()
        piece = _LEADING_URLS_RE.sub("", _RETURNS_TYPE_RE.sub("", raw_piece).strip())
        typed = (
            _NAME_WITH_TYPE_RE.match(piece)
            or _PARAMETER_RE.match(piece)
            or _PAREN_PARAMETER_RE.match(piece)
            or _CODE_LABEL_RE.match(piece)
        )
        option = _option_label(piece)
        if typed and _is_head(f"{typed.group('name')} {{t}}"):
            reader.parameter(typed.group("name"))
            piece = typed.group("rest")
        elif option is not None:
            reader.enter(option, entry=True)
            continue
        elif plain := _PLAIN_TYPED_HEAD_RE.match(piece):
            reader.parameter(plain.group("name"))
            continue
        elif _is_head(piece):
            reader.enter(_label_of(piece), entry=True)
            continue
        found += _prose(piece, reader, followed=number < len(pieces) - 1)
    return found


def labelled_sentences(passage: str) -> list[LabelledSentence]:
    """Every sentence of a passage with the entry or heading it belongs to, markup dropped."""
    found: list[LabelledSentence] = []
    heading = ""
    for block in re.split(r"\n\s*\n", passage):
        lines = block.strip().splitlines()
        if block.strip() == ELISION:
            # Text was left out here: whatever follows may be under another heading.
            heading = ""
            continue
        while lines and (match := _HEADING_RE.match(lines[0])):
            heading = clean_markup(match.group("text")).strip()
            lines = lines[1:]
        if not lines:
            continue
        reader = _Reader(heading=heading)
        if _names_api(heading):
            reader.enter(_label_of(heading), entry=True)
        else:
            reader.enter(heading, entry=False)
        for part in _unquoted("\n".join(lines)):
            found += _block_sentences(clean_markup(part), reader)
    return found


def _unquoted(block: str) -> list[str]:
    """A block without its blockquote marks, cut where a note or warning starts; each part's
    last sentence ends with a full stop if it had none (a note ends where the quote does)."""
    block = _HTML_TAG_RE.sub(" ", block)
    if not _QUOTE_OPEN_RE.search(block):
        return [block]
    parts = [_QUOTE_MARK_RE.sub("", part).strip() for part in _ADMONITION_RE.split(block)]
    return [
        part if part[-1] in ".!?:;," or part.endswith("```") else part + "."
        for part in parts
        if part
    ]
