"""Text primitives of the offline extractive model: tokens, sentences and their scores.

Everything here is deterministic and dependency-free, so the same input always yields the same
words in the same order — the property every end-to-end test of the offline model relies on.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from engine.text.pointers import without_pointers
from engine.text.stopwords import QUESTION_STOPWORDS, is_question_stopword

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_+#.-]*[A-Za-z0-9+#]|[A-Za-z]")
# A release written in full (`3.12.0`, `v2.4.10`) is a word of its own: a question that names
# one is about what happened in it. Two parts (`3.14`) may be any decimal number.
_RELEASE_TERM_RE = re.compile(r"(?<![\w.])v?(\d+\.\d+\.\d+)(?![\w.]*\w)")
_CODE_NAME_RE = re.compile(r"\w[._]\w|[a-z][A-Z]|^[A-Z][A-Z0-9]{2,}$|^--?\w|\(\)$")
# Where a code name joins words: `a.b`, `a_b`, `aB`; and the words it is made of.
_NAME_JOINT_RE = re.compile(r"[._][A-Za-z]|[a-z][A-Z]|[A-Z][A-Z][a-z]")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAME_PART_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Za-z][a-z0-9]*")
_CITATION_MARK_RE = re.compile(r"\[\^?\d+(?:\s*[-,]\s*\d+)*\]")
# A sentence ends at . ! or ? followed by whitespace and an upper-case letter, a digit or a quote.
# Not after "e.g." or "i.e." ("(e.g. HTTP version)"): an abbreviation that never ends one.
_SENTENCE_END_RE = re.compile(
    r"(?<=[.!?])(?<!(?i:\be\.g\.))(?<!(?i:\bi\.e\.))(?<!(?i:\bcf\.))(?<!(?i:\bvs\.))\s+"
    r"(?=[A-Z0-9\"'(])"
)
# "-es" is a suffix of its own only after a hiss (classes, boxes, matches); queues, lines and
# differences only add an "s".
_SIBILANT_ES = ("sses", "xes", "zes", "ches", "shes")
_SUFFIXES = (
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "ies",
    "ied",
    "led",
    "ed",
    "es",
    "s",
)
# Markup, code and list debris that make a "sentence" unfit to quote as prose.
_CODE_MARKERS = ("```", ">>>", "|", "{", "}", "*", "`", "#", " - ", "=", ";", "::", "Sources:")
# A setting named with its value (`maxsize=0`, `windowBits = 15`) is prose, not code; so are
# a product of numbers (`80*8 characters`, `16 * 1024 bytes`) and a file pattern (`test*.py`).
_SETTING_RE = re.compile(
    r"\b[A-Za-z_][\w.]* ?= ?[\w'\"./-]+|\b\d+ ?[*×] ?\d+\b|(?<![\w*])[\w-]*\*\.\w+\b"
)
# A list of numbers with a zero in it is a value (`[0, 0, 0]`), never citation marks, which
# count from one. It is quoted as code so that no reader of the answer takes it for them.
LITERAL_LIST_RE = re.compile(
    r"`?\[(?=[^\]\n]*(?<![\d.])0(?![\d.]))\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*\]`?"
)
_INNER_BOUNDARY_RE = re.compile(r"[.!?][\"')\]]*\s")
_ABBREVIATION_RE = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf)\.", re.IGNORECASE)
# A semicolon between two clauses of words (`… main interpreter; attempting to …`) is prose;
# one before code (`import importlib; importlib.reload(…)`) is not.
_PROSE_SEMICOLON_RE = re.compile(r"(?<=[a-z,)])\s*;(?=\s+(?:[a-z]+|\d[\d,.]*)[\s,])")
# A spaced dash between two clauses of words (`… copying and truncating - the truncate may
# …`) is prose too; one between code or numbers (`now - startTime`, `a - 1`) is not.
_PROSE_DASH_RE = re.compile(r"(?<=[a-z]{3}) - (?=[a-z]+ [a-z]+\b)")
# A release and its date joined by a spaced dash ("before version 3.7.11 - 2012-03-20") is
# prose as well: a date is no operand.
_RELEASE_DATE_DASH_RE = re.compile(r"(?<![\w.])(v?\d+(?:\.\d+)+) - (?=\d{4}-\d\d-\d\d\b)")
_EXAMPLE_TAIL_RE = re.compile(r",?\s+\(?(?:e\.g\.|for example)[,:]?\s+(?P<tail>.+)$", re.I)
# A full stop followed by a lower-case word (`exits. mjs import …`) and code that ends before
# a capitalised word starts a sentence (`… 'foo.HTML' A TypeError is thrown …`).
_LOWER_AFTER_STOP_RE = re.compile(r"(?<=[.!?])\s+(?=[a-z])")
_ABBREVIATION_END_RE = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf)\.$", re.I)
_PROSE_AFTER_CODE_RE = re.compile(r"(?<=[;)'\"\]}])\s+(?=[A-Z][a-z]*\s)")
# Code that reads as words: a definition, imports one after another, a block's colon.
_CODE_RE = re.compile(
    r"\bdef \w+\(|\bimport [\w.]+ (?:import|from|as)\b|\)\s*:\s+[a-z]|\bwhile True\b"
)
# Page furniture run into the start of a sentence, and sentences that are nothing else.
_FURNITURE_PREFIX_RE = re.compile(
    r"^(?:Source code:\s*\S+\s+|(?:Note|Warning|Important|Tip|Caution|Attention|Hint|Danger|"
    r"Reference|Stable|Experimental|Legacy)\s+(?=[A-Z]))"
)
_FURNITURE_SENTENCE_RE = re.compile(
    r"^(?:See\b|Availability:|Stability:|Usage:|Syntax:|Examples?:)"
    r"|\bsource code\b[^.]*\b(?:found|located)\b",
    re.I,
)
# A heading run into the sentence that repeats it: "Tasks Tasks are used to …", or that
# starts with a capital where no sentence has one ("Executing modules as scripts When you run
# …", "The dir() Function The built-in function …").
_REPEATED_HEAD_RE = re.compile(r"^(\w+(?: \w+){0,3}) (?=\1\b)")
_GLUED_HEAD_RE = re.compile(
    r"^(?:[\w().,'’-]+ ){1,6}?(?<![,;:] )(?=(?:The|When|If|This|These|You|It|An?) [a-z])"
)
# An introduction with the first number of the list it introduces: "… as follows: 1."
_LIST_START_RE = re.compile(r":\s*1[.)]$")
# A sentence of fewer terms than this scores as if it had this many: a fragment ("Not
# thread-safe.") is no better an answer for being short.
SHORTEST = 6
_MIN_SENTENCE_CHARS = 40
_MAX_SENTENCE_CHARS = 420
_MIN_SENTENCE_WORDS = 6


def words(text: str) -> list[str]:
    """The words of a text, lower-cased, punctuation dropped (dots inside names kept)."""
    return [match.group(0).lower().rstrip(".") for match in _WORD_RE.finditer(text)]


def term_stem(word: str) -> str:
    """A light suffix stripper that brings plurals to their singular: `cancelled`, `cancel` and
    `cancellation` meet, and so do `queues` and `queue`, `classes` and `class`.

    The offline model's own: the engine's stemmer (`engine.text.stem`, Porter) ranks some
    candidate sentences of the offline model differently, and its answers were measured with
    this one.
    """
    return _stem(word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if suffix == "es" and not word.endswith(_SIBILANT_ES):
            continue  # queues -> queue (by "s"), not queu; classes -> class
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            continue  # class, status, analysis: no plural "s" to strip
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return base + "y"
            if len(base) >= 5 and base[-1] == base[-2] and base[-1] not in "aeious":
                base = base[:-1]  # cancell(ed) -> cancel, controll(ing) -> control
            return _without_final_e(base)
    return _without_final_e(word)


def _without_final_e(word: str) -> str:
    """`route` -> `rout`, as `routing` and `routed` become: a verb's silent e goes with -ing
    and -ed, so the word meets its other forms (`close`, `closed`, `closing`)."""
    return word[:-1] if word.endswith("e") and not word.endswith("ee") and len(word) >= 5 else word


def content_words(text: str) -> list[str]:
    """Words that carry meaning (stopwords and one-letter words dropped), in order."""
    return [word for word in words(text) if word not in QUESTION_STOPWORDS and len(word) > 1]


def terms(text: str) -> set[str]:
    """Stemmed content words: the unit of every overlap score.

    A name written as code counts as itself and as the words it is made of, so that
    `get_all_start_methods` meets "start method" and `defaultMaxListeners` meets "max listeners".
    """
    return set(_terms(text))


# The same entry text and page title are the context of many sentences: read each once.
@lru_cache(maxsize=8192)
def _terms(text: str) -> frozenset[str]:
    found: set[str] = set()
    for match in _WORD_RE.finditer(text):
        written = match.group(0).rstrip(".")
        word = written.lower()
        if is_question_stopword(written) or len(word) < 2:
            continue
        found.add(term_stem(word))
        if _NAME_JOINT_RE.search(written):
            for part in _NAME_PART_RE.findall(_CAMEL_RE.sub(" ", written)):
                lowered = part.lower()
                if len(lowered) > 1 and lowered not in QUESTION_STOPWORDS:
                    found.add(term_stem(lowered))
    found.update(f"v{match.group(1)}" for match in _RELEASE_TERM_RE.finditer(text))
    return frozenset(found)


def is_code_name(token: str) -> bool:
    """Whether a word is written as a name in code: `asyncio.open_connection`, `put_nowait`,
    `defaultMaxListeners`, `EventEmitter`, `TIMEOUT_MAX`, `--json-lines`, `reload()`."""
    return bool(_CODE_NAME_RE.search(token.strip("'\"")))


def name_terms(text: str) -> set[str]:
    """The terms of the code names a text writes, each whole (`asyncio.gather`)."""
    found: set[str] = set()
    for token in text.split():
        token = token.strip("?!,;:'\"()[]")
        word = _WORD_RE.search(token)
        if word and is_code_name(token):
            found.add(term_stem(word.group(0).lower().rstrip(".")))
    return found


def count_words(text: str) -> int:
    """Token usage as the offline model reports it: whitespace-separated words."""
    return len(text.split())


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage, whitespace collapsed; lines are hard boundaries."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•+]|\d+[.)])\s)", text):
        flat = " ".join(block.split())
        if not flat:
            continue
        sentences.extend(part.strip() for part in _SENTENCE_END_RE.split(flat) if part.strip())
    return sentences


def quotable(sentence: str, *, short_ok: bool = False) -> bool:
    """Whether a sentence can be quoted as a claim: one prose sentence, sensible length, no code.

    "One sentence" is checked the strict way (no inner `. ` boundary) so that any splitter
    downstream cuts the quoted text exactly where this one did. `short_ok` admits short
    sentences ("Default: 30.") that are quoted under the name of the entry they belong to.
    """
    min_chars, min_words = (8, 2) if short_ok else (_MIN_SENTENCE_CHARS, _MIN_SENTENCE_WORDS)
    if not min_chars <= len(sentence) <= _MAX_SENTENCE_CHARS:
        return False
    if len(sentence.split()) < min_words:
        return False
    if sentence[-1] not in ".!?" or not (sentence[0].isupper() or sentence[0].isdigit()):
        return False
    if _LIST_START_RE.search(sentence) and len(sentence.split()) > 4:
        return False
    prose = _SETTING_RE.sub("setting", LITERAL_LIST_RE.sub("value", sentence))
    prose = _PROSE_SEMICOLON_RE.sub(",", prose)
    prose = _PROSE_DASH_RE.sub(", ", _RELEASE_DATE_DASH_RE.sub(r"\1, ", prose))
    if _CITATION_MARK_RE.search(prose) or "://" in sentence:
        return False
    if any(token in prose for token in _CODE_MARKERS) or sentence.endswith(":."):
        return False
    if _CODE_RE.search(prose):
        return False
    if _INNER_BOUNDARY_RE.search(_ABBREVIATION_RE.sub("", sentence[:-1])):
        return False
    letters = sum(ch.isalnum() or ch.isspace() or ch in ".,:'’" for ch in sentence)
    # "See Section 25.1 for details.": a pointer to another page states nothing.
    return letters / len(sentence) >= 0.85 and bool(without_pointers(sentence))


def without_boilerplate(sentence: str) -> str | None:
    """The sentence without the page furniture run into its start (`Source code: Lib/x.py`,
    an admonition's `Note`, a stability badge); None when the whole sentence is furniture
    (a "See also" pointer, where the source code can be found, availability lists)."""
    if _FURNITURE_SENTENCE_RE.search(sentence):
        return None
    previous = None
    while previous != sentence:
        previous = sentence
        sentence = _FURNITURE_PREFIX_RE.sub("", sentence, count=1)
        sentence = _REPEATED_HEAD_RE.sub("", sentence, count=1)
        sentence = _GLUED_HEAD_RE.sub("", sentence, count=1)
    return sentence or None


def prose_part(sentence: str, *, short_ok: bool = False) -> str | None:
    """The prose of a sentence that runs into code or out of it, when that part reads as one
    quotable sentence on its own; None otherwise.

    Pages flattened for indexing run code examples into the prose around them ("… the process
    exits. mjs import …", "… // Returns: 'foo' A TypeError is thrown if …", "… use
    importlib.reload(), e.g. import importlib; …"): the sentence before the code, the sentence
    after it, or the sentence without its example of code.
    """
    example = _EXAMPLE_TAIL_RE.search(sentence)
    if example and not quotable(example.group("tail").strip(), short_ok=True):
        head = sentence[: example.start()].rstrip(" ,;:–—-") + "."
        if quotable(head, short_ok=short_ok):
            return head
    for end in _LOWER_AFTER_STOP_RE.finditer(sentence):
        head = sentence[: end.start()]
        if not _ABBREVIATION_END_RE.search(head) and quotable(head, short_ok=short_ok):
            return head
    for start in _PROSE_AFTER_CODE_RE.finditer(sentence):
        tail = sentence[start.end() :]
        if quotable(tail):
            return tail
    return None


# Where the prose inside a text that runs into code ends or starts again: after a sentence's
# end, before a capitalised word that follows code, and after a colon that introduces code (a
# Markdown fence's language, `js const …`, or code itself, `like so: method.apply(…)`).
_PART_BOUNDARY_RE = re.compile(
    r"(?<=[.!?])\s+|(?<=[;)'\"\]}])\s+(?=[A-Z][a-z]*\s)|"
    r"(?<=:)\s+(?=(?:js|javascript|mjs|cjs|ts|typescript|sh|bash|shell|console|json|text|"
    r"python|py|pycon|yaml|toml|ini|html|xml|sql)\s|[\w.$]+[({\[]|[$>/{\[])"
)
# A lead-in that only points at what follows says nothing until its code does ("… as
# follows:", "You can see an example using …:").
_POINTER_LEAD_IN_RE = re.compile(
    r"\b(?:follow(?:s|ing)|like so|like this|below|such as|e\.g\.|for instance|as shown|"
    r"this|these|here)\s*:$|\b(?:example|snippet|consider|following)\b",
    re.I,
)
_MIN_LEAD_IN_WORDS = 6


def prose_parts(sentence: str, *, short_ok: bool = False) -> list[str]:
    """Every quotable sentence of prose inside a text that runs into code and out of it.

    `prose_part`'s choice comes first; then each piece between the code and the sentence ends
    that reads as one sentence ("… }) pino(transport) By default, the transport appends to the
    file if it exists. The append option …"): one that begins with a code name in lower case
    (`pino.destination is implemented on …`) too, and a statement that ends in a colon before
    its code example ("Since v6, consecutive parameters are not concatenated: js …"), with a
    full stop. A colon that only points at the code ("… as follows:") says nothing. With
    `short_ok`, short sentences count too (an entry's "Parses all headers.", quoted under its
    name).
    """
    first = prose_part(sentence, short_ok=short_ok)
    found = [first] if first is not None else []
    starts = [0, *(m.end() for m in _PART_BOUNDARY_RE.finditer(sentence))]
    ends = [m.start() for m in _PART_BOUNDARY_RE.finditer(sentence)] + [len(sentence)]
    for start, end in zip(starts, ends, strict=True):
        piece = sentence[start:end].strip()
        if _ABBREVIATION_END_RE.search(piece):
            continue
        if piece.endswith(":") and end < len(sentence):
            if len(piece.split()) < _MIN_LEAD_IN_WORDS or _POINTER_LEAD_IN_RE.search(piece):
                continue
            if ": " in piece:
                # Another colon inside: the lead-in ran over flattened code or a list
                # ("… loop: try: result = …"), which its page never wrote as one sentence.
                continue
            piece = piece[:-1].rstrip() + "."
        first_word = piece.split(" ", 1)[0]
        checked = piece[:1].upper() + piece[1:] if is_code_name(first_word) else piece
        if piece not in found and piece != sentence and quotable(checked, short_ok=short_ok):
            found.append(piece)
    return found


def score(
    sentence_terms: set[str],
    query_terms: set[str],
    weights: dict[str, float],
    *,
    context: set[str] | frozenset[str] = frozenset(),
) -> float:
    """Weighted query-term overlap, damped by sentence length so long sentences don't win.

    `context` terms (the entry a sentence is under) match at half weight, without
    lengthening it: a sentence of the entry asked about beats the same words elsewhere.
    """
    if not sentence_terms or not query_terms:
        return 0.0
    own = sentence_terms & query_terms
    matched = own | (context & query_terms)
    if not matched:
        return 0.0
    weight = sum(weights.get(term, 1.0) * (1.0 if term in own else 0.5) for term in matched)
    coverage = len(matched) / len(query_terms)
    return (weight + coverage) / math.sqrt(max(len(sentence_terms), SHORTEST))
