"""What kind of fact a question asks for, and whether a sentence states one.

A lookup question names the kind of its answer: "how many / how long / what size" wants a
number, "which version / since when" a version, "which function / exception / class" a name,
"what is the default" a default value, "what happens when" a consequence. A sentence that
matches the question's words but states no such fact (the passing mention next to the answer)
is worth less than one that does. Everything here is by the form of the words, never by a list
of subjects, so it reads any documentation the same way.
"""

from __future__ import annotations

import re

from engine.text.stopwords import QUESTION_STOPWORDS

NUMBER = "number"
VERSION = "version"
NAME = "name"
DEFAULT = "default"
CONSEQUENCE = "consequence"

_VERSION_Q = re.compile(
    # "Which Node.js versions …": a name with a dot may stand between.
    r"\b(?:which|what)\s+(?:[\w.]+\s+){0,2}(?:versions?|releases?)\b|\bsince\s+(?:when|which)\b|"
    r"\bwhen\s+(?:was|were|did)\b[^?]*\b(?:added|introduced|deprecated|removed|changed|gain)",
    re.I,
)
_NUMBER_Q = re.compile(
    r"\bhow\s+(?:many|much|long|large|big|often|far|small)\b|"
    r"\bwhat\s+(?:\w+\s+){0,3}(?:size|number|value|limit|length|delay|timeout|level|"
    r"complexity|count|percentage|port)\b|"
    r"\b(?:largest|smallest|maximum|minimum|numeric)\b",
    re.I,
)
_NAME_NOUNS = (
    r"function|method|class|exception|error|module|decorator|attribute|property|option|"
    r"variable|event|symbol|helper|object|constant|parameter|argument|name|flag|file|command|"
    r"type|signal|directory|header|field|hook|library|package|tool|plugin|dependency"
)
# A clause before the question proper: "In the queue module, which…", "When X is given data,
# which…".
_LEAD = r"^\s*(?:[^,?]{1,160},\s*)?"
_NAME_Q = re.compile(rf"{_LEAD}(?:which|what)\b[^?]*?\b(?P<noun>{_NAME_NOUNS})s?\b", re.I)
# "Which property changes the maximum number…": the question opens by naming what it wants,
# whatever its other words mention.
_ASKED_NAME_Q = re.compile(
    rf"{_LEAD}(?:which|what)\s+(?:[\w-]+\s+){{0,2}}?(?P<noun>{_NAME_NOUNS})s?\b", re.I
)
_DEFAULT_Q = re.compile(r"\bdefaults?\b|\bby default\b", re.I)
_CONSEQUENCE_Q = re.compile(
    r"\bwhat\s+(?:happens|can go wrong|goes wrong)\b|"
    r"\bwhat\s+(?:can|could|may|might|will|would)\s+happen\b|"
    r"\bwhat\s+(?:is|are)\s+the\s+(?:result|effect|outcome)|"
    # "What is returned when …", "What does the pragma return if …": what comes back.
    r"\bwhat\s+(?:is|are)\s+returned\b|\bwhat\s+does\s+[^?]{1,80}?\breturn\s+(?:when|if)\b",
    re.I,
)
# The condition of a question that asks what happens: "… when an insert would grow the file
# beyond its maximum number of pages?" (its words say when, not what is asked).
_CONDITION_Q = re.compile(r"\b(?:when|if|once|after)\b[^?]*", re.I)

_VERSION_RE = re.compile(
    r"\b(?:version|versions|since|added|introduced|new in|changed in|deprecated|removed)\b"
    r"\D{0,30}\bv?\d+\.\d+|\bv\d+\.\d+|"
    # A major version alone: `fastify@6`, `Node.js v24`; a release line: `8.x`, `~7.x`.
    r"(?<=[a-z])@\d+\b|\bv\d{1,3}\b(?!\.\d)|(?<![\w.])v?\d{1,3}\.x\b",
    re.I,
)
_VERSIONISH_RE = re.compile(r"\bv?\d+\.\d+\.\d+\b|\b(?:version|python|v)\s*\d+(?:\.\d+)+", re.I)
_NUMBER_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|hundred|thousand|million|billion|infinite|unlimited|unbounded"
)
_NUMBER_RE = re.compile(
    rf"(?<![\w.])\d(?:[\d,._]*\d)?(?:\s*[*x×^]\s*\d+)?|\b(?:{_NUMBER_WORDS})\b", re.I
)
# A named constant stands for a value: `WARNING` answers "at what level…", `SEEK_SET` "what
# value…".
_CONSTANT_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b")
_VALUE_Q = re.compile(r"\bwhat\s+(?:\w+\s+){0,3}(?:level|value|mode)\b", re.I)
_DEFAULT_RE = re.compile(r"\bdefault(?:s|ed)?\b|\b[\w.]+=[^\s,)]+", re.I)
_IDENTIFIER_RE = re.compile(
    r"\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|\b[A-Za-z_$][\w$]*\(\)|"
    r"\b[a-z]+[A-Z][\w$]*|\b[A-Z][a-z0-9]+[A-Z][\w$]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|"
    r"\b[A-Z]{3,}[A-Z0-9]*\b|\b[a-z]+_[\w]+|'[^'\s]{1,30}'|\"[^\"\s]{1,30}\"|"
    r"\b[A-Z][a-z]+(?:Error|Exception|Warning|Exit|Interrupt)\b|\b\w+\.(?:cfg|py|json|ini|toml)\b|"
    # Names that begin with an acronym (`EOFError`), file patterns (`test*.py`), dot-files
    # (`.venv`).
    r"\b[A-Z]{2,}[A-Z][a-z]\w*|(?<![\w.])[\w-]*\*[\w*-]*\.\w+|(?<![\w.])\.[a-z][\w-]+\b"
)
# A plain word that the sentence says is a function, method or hook: "a send function",
# "the flush method"; not a word that describes one ("the exported function", "a mapping
# function", "a synchronous function").
_NAMED_AS_RE = re.compile(
    r"\b(?:a|an|the|its|their)\s+(?P<name>[a-z][A-Za-z0-9]{2,})\s+(?P<noun>functions?|methods?|"
    r"hooks?)\b"
)
_DESCRIBING_RE = re.compile(r"(?:ed|ing|al|ous|ive|ic|ful|ble|ary|less|ent|ant)$")
_FILE_RE = re.compile(r"\.(?:js|mjs|cjs|ts|json|md|py|html?|cfg|ini|toml|ya?ml|txt|d)$")
_PACKAGE_NOUNS = frozenset({"module", "library", "package", "tool", "plugin", "dependency"})
# A package's name: lower-case words joined by hyphens (`pino-abstract-transport`). English
# compounds have the same form (`top-level`), so it counts only where a module, library or
# tool is asked for.
_PACKAGE_NAME_RE = re.compile(r"(?<![\w./-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_CALLABLE_RE = re.compile(r"(?<![\w.])@?[A-Za-z_][\w.]*(?=\()|(?<![\w.])@[A-Za-z_][\w.]*")
# A method or function named by its path without a call: `client.connect`, `console.error`,
# `pino.stdTimeFunctions.unixTime` (each part two letters or more, so not `e.g`; the last in
# lower case, so not a class such as `undici.Dispatcher`, nor a page such as `Node.js`).
_DOTTED_NAME_RE = re.compile(
    r"(?<![\w.$])[a-z_$][\w$]+(?:\.[A-Za-z_$][\w$]+)*\.[a-z_$][\w$]+(?![\w$(]|\.\w)"
)
# The name of an exception: `OverflowError`, `queue.Full` raised, "the Full exception".
_EXCEPTION_NAME_RE = re.compile(
    r"\b([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt))\b|"
    r"\b(?:rais(?:e|es|ed|ing)|throws?|thrown)\s+(?:an?\s+|the\s+)?([A-Z][\w.]+)"
    r"|\b(?:an?|the)\s+([A-Z][\w.]+)\s+(?:exception|error)\b"
)
_CONSEQUENCE_RE = re.compile(
    r"\b(?:rais(?:e|es|ed|ing)|throw(?:s|n)?|error|exception|return(?:s|ed)?|discard(?:s|ed)?|"
    r"block(?:s|ed)?|deadlock\w*|ignored?|truncat\w+|set to|exit(?:s|ed)?|fail(?:s|ed)?|"
    r"cancel\w*|replac\w+|overwrit\w+|lost|never|terminat\w+|crash\w*|warn\w*|mangl\w+|"
    r"shared|accumulat\w+|continue|stop(?:s|ped)?|unblock\w*|wait\w*|invok\w+|not found|"
    r"\w+Error|\w+Exception)\b",
    re.I,
)


_RELEASE_NOTE_RE = re.compile(
    r"^(?:[^:]{1,100}:\s+)?(?:New in version|Changed in version|Deprecated since version|"
    r"Added in:?)\s+v?\d",
    re.I,
)


# A sentence quoted under a key that is a version or a number: a table row's first cell.
_KEYED_ROW_RE = re.compile(r"^(v?\d[\w.]*)\s*:\s")


def states_number(text: str) -> bool:
    """Whether a text states a number, in digits or in words ("ten", "3")."""
    return _NUMBER_RE.search(text) is not None


def fact_kinds(question: str) -> frozenset[str]:
    """The kinds of fact a question asks for (empty when its form names none).

    A default the question mentions while it asks what happens is the condition, not the
    fact asked ("… is left at its default, what happens to the others?").
    """
    kinds: set[str] = set()
    consequence = _CONSEQUENCE_Q.search(question) is not None
    if _ASKED_NAME_Q.search(question):
        kinds.add(NAME)
    elif _VERSION_Q.search(question):
        kinds.add(VERSION)
    elif _NUMBER_Q.search(_CONDITION_Q.sub(" ", question) if consequence else question):
        kinds.add(NUMBER)
    elif _NAME_Q.search(question) and not consequence:
        # "What happens when … the copytruncate option is used?" asks for what happens, not
        # for a name: the option is the condition.
        kinds.add(NAME)
    if consequence:
        kinds.add(CONSEQUENCE)
    elif _DEFAULT_Q.search(question):
        kinds.add(DEFAULT)
    return frozenset(kinds)


def asked_noun(question: str) -> str:
    """The kind of name a question asks for (`exception`, `function`, …), or ""."""
    match = _ASKED_NAME_Q.search(question) or _NAME_Q.search(question)
    return match.group("noun").lower() if match else ""


def _new(tokens: list[str], question: str) -> list[str]:
    """Tokens the question does not already contain: the answer is what it does not say.

    Whole tokens only: the `1` of `1 << windowBits` is new to a question about windowBits 15.
    """
    asked = question.casefold()
    return [token for token in tokens if not _whole_in(token.strip("'\"").casefold(), asked)]


def _whole_in(token: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(token)}(?!\w)", text) is not None


def states(kind: str, sentence: str, question: str) -> bool:
    """Whether `sentence` states a fact of `kind` that the question does not already give."""
    if kind == VERSION:
        return bool(_VERSION_RE.search(sentence))
    if kind == NUMBER:
        without_versions = _VERSIONISH_RE.sub(" ", sentence)
        found = [m.group(0) for m in _NUMBER_RE.finditer(without_versions)]
        if _VALUE_Q.search(question):
            found += [m.group(0) for m in _CONSTANT_RE.finditer(sentence) if len(m.group(0)) > 2]
        return bool(_new(found, question))
    if kind == DEFAULT:
        return bool(_DEFAULT_RE.search(sentence))
    if kind == NAME:
        return bool(_new(_names(sentence, asked_noun(question)), question))
    if kind == CONSEQUENCE:
        return bool(_CONSEQUENCE_RE.search(sentence))
    return False


def _names(sentence: str, noun: str) -> list[str]:
    """The names a sentence gives; for a question that asks which exception, only exceptions;
    which function, method or decorator, only names written as calls (`reload()`, `@cache`)."""
    if noun in {"function", "method", "decorator", "helper", "hook"}:
        # A name written as a call, or one the sentence calls a function or method ("the
        # addHttpMethod method allows …", "a send function which …").
        called = re.compile(rf"\s+(?:{noun}|function|method)s?\b", re.I)
        return (
            [m.group(0) for m in _CALLABLE_RE.finditer(sentence)]
            + _dotted_names(sentence, noun)
            + [
                m.group(0)
                for m in _IDENTIFIER_RE.finditer(sentence)
                if called.match(sentence, m.end()) and m.group(0)[:1] not in "'\""
            ]
            + [
                m.group("name")
                for m in _NAMED_AS_RE.finditer(sentence)
                if m.group("noun").lower().rstrip("s") in {noun, "function", "method"}
                and m.group("name").lower() not in QUESTION_STOPWORDS
                and not _DESCRIBING_RE.search(m.group("name"))
            ]
        )
    if noun in _PACKAGE_NOUNS:
        # A module, library or tool is named as a package is: `sonic-boom`, `fast-redact`.
        return [m.group(0) for m in _IDENTIFIER_RE.finditer(sentence)] + [
            m.group(0) for m in _PACKAGE_NAME_RE.finditer(sentence)
        ]
    if noun not in {"exception", "error"}:
        return [m.group(0) for m in _IDENTIFIER_RE.finditer(sentence)]
    return [
        next(group for group in m.groups() if group) for m in _EXCEPTION_NAME_RE.finditer(sentence)
    ]


def _dotted_names(sentence: str, noun: str) -> list[str]:
    """Names written as a path with no call that answer which method (`client.connect`,
    `console.error`), or which function when the last part is in camel case, as functions are
    (`pino.stdTimeFunctions.unixTime`; `sys.path` is a variable)."""
    found = [m.group(0) for m in _DOTTED_NAME_RE.finditer(sentence)]
    return [
        name
        for name in found
        if not _FILE_RE.search(name)
        and (noun == "method" or re.search(r"[a-z][A-Z]", name.rsplit(".", 1)[-1]))
    ]


def fact_factor(kinds: frozenset[str], sentence: str, question: str) -> float:
    """How much a sentence's fit to the question's words is worth, given the facts it states.

    1.0 when the question names no kind; otherwise up when the sentence states the kind of
    fact asked, down when it states none of them. A release note ("Changed in version 3.10:
    Removed the loop parameter.") tells when, which only a version question asks.
    """
    incidental = VERSION not in kinds and _RELEASE_NOTE_RE.search(sentence) is not None
    factor = 0.5 if incidental else 1.0
    keyed = _KEYED_ROW_RE.match(sentence)
    if keyed and _whole_in(keyed.group(1).casefold(), question.casefold()):
        # The row of a table keyed by the version or number the question names (`9.x: …` for
        # "the 9.x release line"): number-like keys are no words of the match, so say it here.
        factor *= 2.0
    if not kinds:
        return factor
    stated = sum(states(kind, sentence, question) for kind in kinds)
    return factor * (1.0 + stated if stated else 0.5)
