"""Extractive notes: the best-matching retrieved sentences, each cited, with a Sources list."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.models.offline.facts import states_number
from engine.models.offline.passages import LabelledSentence, labelled_sentences
from engine.models.offline.rank import SPREAD, Candidate, rank_candidates
from engine.models.offline.sources import Source
from engine.models.offline.text import prose_parts, quotable

_ONE_RE = re.compile(r"\bone\b", re.I)
# A sentence that opens by pointing back at the one before it: "To overcome this, …",
# "In this case, …", "Accessing them …", "It also …", "The parameter is optional …".
_REFERS_BACK_RE = re.compile(
    r"^(?:[\w-]+,?\s+){0,2}(?:this|that|these|those|it|they|them)\b(?![\w-])(?!\s+(?:is|are)\b)|"
    # "The parameter is optional and defaults to …": the parameter named just before.
    r"^The\s+(?:parameter|argument|option|callback|flag|setting|property)s?\s+(?:is|are|must|"
    r"can|may|defaults?)\b",
    re.I,
)


# An option in a code example, its value and the comment that marks it as the default:
# `maxRedirects: 21, // default`, `timeout: 1000, // default is 0 (no timeout)`.
_COMMENTED_DEFAULT_RE = re.compile(
    r"(?<![\w$.])(?P<name>[A-Za-z_$][\w$]*):\s+(?P<value>'[^']{0,40}'|\"[^\"]{0,40}\"|[\w.$+-]{1,30}),?"
    r"\s+//\s+default\b(?:\s+is\s+(?P<stated>[^/]{1,50}?))?(?=\s*(?://|$|[}\]]))"
)
# Where the comment about such an option begins: after the code before it, or after the mark
# of the option before it.
_COMMENT_START_RE = re.compile(r"[,{}]\s+(?=//)|//\s+default\b[^/]*?(?=//)")
# How far back the comment that describes such an option may begin.
_COMMENT_CHARS = 300
# How much of the code example after a statement's colon counts as its context.
_EXAMPLE_CHARS = 160

# A label that begins with a number or a version: `7.x`, `v18.x`, `3.11`, `≥20`.
_NUMERIC_LABEL_RE = re.compile(r"^\W{0,2}v?\d")


@dataclass(frozen=True)
class Quote:
    """A sentence quoted verbatim from a source, and that source."""

    text: str
    source: Source


def _bare_name(label: str) -> str:
    """`asyncio.Queue(maxsize=0)` -> `queue`: the name a sentence would mention. A label that
    is a number or a version (a table row's first cell, `7.x`, `v18.x`, `40`) is one whole."""
    if _NUMERIC_LABEL_RE.match(label):
        return label.strip().casefold()
    return label.split("(", 1)[0].rsplit(".", 1)[-1].strip().casefold()


def quoted_text(sentence: LabelledSentence) -> str | None:
    """The sentence as quoted: under its entry's name when it does not say it, else as is;
    only its prose when it runs into code. None when it cannot be quoted at all."""
    texts = quoted_texts(sentence)
    return texts[0][0] if texts else None


def quoted_texts(sentence: LabelledSentence) -> list[tuple[str, str]]:
    """`quoted_text`, and when the sentence runs into code, every sentence of its prose: the
    one before the code, those after it, a statement whose colon introduces the code. Each
    with the words its source says, when the quote puts its entry's name before them."""
    quoted = _quoted(sentence.text, sentence)
    if quoted is not None:
        return [(quoted, sentence.text if quoted != sentence.text else "")]
    found: list[tuple[str, str]] = []
    for prose in prose_parts(sentence.text, short_ok=_under_entry(sentence)):
        opens = sentence.opens or not prose[:1].isupper()
        text = _quoted(prose, replace(sentence, opens=opens))
        if text is not None and all(text != known for known, _ in found):
            found.append((text, prose if text != prose else ""))
    if not found and (lead_in := _lead_in(sentence.text)) is not None:
        text = _quoted(lead_in, sentence)
        if text is not None:
            found.append((text, sentence.text))
    return found


def _under_entry(sentence: LabelledSentence) -> bool:
    """Whether the sentence belongs to an entry, under whose name a short sentence says enough
    (`getSetCookies(headers): Parses all Set-Cookie headers.`; `_quoted` checks the name)."""
    return sentence.entry and bool(sentence.label)


def _lead_in(text: str) -> str | None:
    """A sentence that introduces a list or the sections after it ("There are ten different
    hooks …:", "… supports the following 3 options:") and states a number of its own, as a
    sentence ending with a full stop; None for any other text. A lead-in with no number ("…
    as follows:") says nothing until its list does."""
    # "One of the following:" counts nothing.
    if not text.endswith(":") or not states_number(_ONE_RE.sub("", text)):
        return None
    return text[:-1].rstrip() + "."


def _quoted(text: str, sentence: LabelledSentence) -> str | None:
    # A sentence known to start here is checked as one even when its first word is lower-case.
    checked = text[:1].upper() + text[1:] if sentence.opens else text
    if sentence.entry and sentence.label:
        name = _bare_name(sentence.label)
        # A short sentence that names its entry ("The default method is btree.") is quoted
        # under the entry too, as one that does not name it is.
        if name and (name not in text.casefold() or not quotable(checked)):
            if not quotable(checked, short_ok=True):
                return None
            return f"{sentence.label}: {text}"
    return text if quotable(checked) else None


def candidates_from(sources: Sequence[Source]) -> list[Candidate]:
    """Every quotable sentence of every source, in source order; the page's title and name
    are part of each one's context (a sentence of the queues page is about queues)."""
    found: list[Candidate] = []
    for index, source in enumerate(sources):
        position = 0
        page = _page_words(source)
        for passage in source.passages:
            sentences = labelled_sentences(passage)
            previous = ""
            for sentence in sentences:
                quotes = quoted_texts(sentence)
                for text, said in quotes:
                    context = _context(sentence, sentences)
                    if _REFERS_BACK_RE.match(text):
                        # "To overcome this, the logMethod hook can be used.": what "this" is
                        # was said just before.
                        context = f"{context} {previous}".strip()
                    context = f"{context} {_example_after(text, sentence.text)}".strip()
                    found.append(Candidate(text, index, position, context, said, page))
                    position += 1
                    previous = said or text
                if not quotes:
                    previous = sentence.text
            for text, context, said in commented_defaults(passage):
                found.append(Candidate(text, index, position, context, said, page))
                position += 1
    return found


def commented_defaults(passage: str) -> list[tuple[str, str, str]]:
    """The options of a code example that documents each one in comments and marks its value
    `// default` (`// maxRedirects defines the maximum number of redirects … maxRedirects: 21,
    // default`): each as `maxRedirects: Default: 21.`, with its comment as context and the
    code as said. A value written after the mark (`timeout: 1000, // default is 0 (no
    timeout)`) is the default."""
    found: list[tuple[str, str, str]] = []
    for match in _COMMENTED_DEFAULT_RE.finditer(passage):
        value = (match.group("stated") or match.group("value")).strip()
        before = passage[max(0, match.start() - _COMMENT_CHARS) : match.start()]
        comment = _COMMENT_START_RE.split(before)[-1]
        found.append((f"{match.group('name')}: Default: {value}.", comment.strip(), match.group(0)))
    return found


def _example_after(quote: str, text: str) -> str:
    """The code example a quoted statement's colon introduced ("Accessing them in the browser
    throws a TypeError: js pino.destination('./file') …"): what it shows is what the statement
    is about. Empty for any other quote."""
    if not quote.endswith(".") or quote == text:
        return ""
    at = text.find(f"{quote[:-1].rstrip()}:")
    if at < 0:
        return ""
    return text[at + len(quote) : at + len(quote) + _EXAMPLE_CHARS]


def _page_words(source: Source) -> str:
    """The page's own title (before any ` — site` suffix) and the name in its locator."""
    title = source.title.split(" — ", 1)[0]
    name = source.locator.rstrip("/").rsplit("/", 1)[-1]
    return f"{title} {name}"


def _context(sentence: LabelledSentence, sentences: Sequence[LabelledSentence]) -> str:
    """An entry's name and all its text (a section heading alone: sections are long), and the
    name of the entry a parameter, option or table row belongs to."""
    if not sentence.entry:
        return sentence.label
    entry = [s.text for s in sentences if s.entry and s.label == sentence.label]
    return " ".join([sentence.owner, sentence.label, *entry]).strip()


def best_quotes(
    sources: Sequence[Source],
    query: str,
    *,
    limit: int,
    spread: float = SPREAD,
    focus: str = "",
) -> list[Quote]:
    """The `limit` sentences that best match `query`, spread over sources while they compete
    (`spread`: what each sentence taken from a source discounts its next one by); the words of
    `focus` (a section heading) weigh more."""
    chosen = rank_candidates(
        candidates_from(sources), query, limit=limit, spread=spread, focus=focus
    )
    return [Quote(candidate.text, sources[candidate.source_index]) for candidate in chosen]


def _fallback(locator: str) -> str:
    """A title for a source nobody named: the URL without its scheme, or the document key."""
    for scheme in ("https://", "http://"):
        if locator.startswith(scheme):
            return locator.removeprefix(scheme).rstrip("/")
    return locator


class CitationNumbers:
    """Numbers sources in the order they are first cited."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._titles: dict[str, str] = {}

    def number(self, locator: str, title: str = "") -> int:
        if locator not in self._numbers:
            self._numbers[locator] = len(self._numbers) + 1
            self._titles[locator] = title if title and title != locator else _fallback(locator)
        return self._numbers[locator]

    def sources_lines(self) -> list[str]:
        """`[n] Title: URL-or-key` for every cited source, in number order."""
        return [
            f"[{number}] {self._titles[locator]}: {locator}"
            for locator, number in self._numbers.items()
        ]

    def __len__(self) -> int:
        return len(self._numbers)


def notes_text(quotes: Sequence[Quote]) -> str:
    """Research notes: one cited quote per bullet, then `Sources:`."""
    if not quotes:
        return "No retrieved source matched this topic."
    numbers = CitationNumbers()
    lines: list[str] = []
    for quote in quotes:
        number = numbers.number(quote.source.locator, quote.source.title)
        lines.append(f"- {quote.text} [{number}]")
    lines += ["", "Sources:", *numbers.sources_lines()]
    return "\n".join(lines)


def answer_text(heading: str, quotes: Sequence[Quote]) -> str:
    """A short cited answer (the quick path): a heading, quoted lines, a Sources section."""
    if not quotes:
        return f"# {heading}\n\nNo retrieved source answered this question."
    numbers = CitationNumbers()
    lines = [f"# {heading}", ""]
    for quote in quotes:
        number = numbers.number(quote.source.locator, quote.source.title)
        lines.append(f"{quote.text} [{number}]")
    lines += ["", "## Sources", *numbers.sources_lines()]
    return "\n".join(lines)
