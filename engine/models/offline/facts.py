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

NUMBER = "number"
VERSION = "version"
NAME = "name"
DEFAULT = "default"
CONSEQUENCE = "consequence"

_VERSION_Q = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:version|release)\b|\bsince\s+(?:when|which)\b|"
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
_NAME_Q = re.compile(
    r"^\s*(?:in\s+\w+(?:\s+\w+){0,4},\s*)?(?:which|what)\b[^?]*?\b(?:function|method|class|"
    r"exception|error|module|decorator|attribute|property|option|variable|event|symbol|"
    r"helper|object|constant|parameter|argument|name|flag|file|command|type|signal|"
    r"directory|header|field)s?\b",
    re.I,
)
_DEFAULT_Q = re.compile(r"\bdefaults?\b|\bby default\b", re.I)
_CONSEQUENCE_Q = re.compile(
    r"^\s*what\s+(?:happens|can go wrong|goes wrong)\b|"
    r"\bwhat\s+(?:is|are)\s+the\s+(?:result|effect|outcome)",
    re.I,
)

_VERSION_RE = re.compile(
    r"\b(?:version|versions|since|added|introduced|new in|changed in|deprecated|removed)\b"
    r"\D{0,30}\bv?\d+\.\d+|\bv\d+\.\d+",
    re.I,
)
_VERSIONISH_RE = re.compile(r"\bv?\d+\.\d+\.\d+\b|\b(?:version|python|v)\s*\d+(?:\.\d+)+", re.I)
_NUMBER_WORDS = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|hundred|thousand|million|billion|infinite|unlimited|unbounded"
)
_NUMBER_RE = re.compile(rf"(?<![\w.])\d[\d,._]*(?:\s*[*x×^]\s*\d+)?|\b(?:{_NUMBER_WORDS})\b", re.I)
_DEFAULT_RE = re.compile(r"\bdefault(?:s|ed)?\b|\b[\w.]+=[^\s,)]+", re.I)
_IDENTIFIER_RE = re.compile(
    r"\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|\b[A-Za-z_$][\w$]*\(\)|"
    r"\b[a-z]+[A-Z][\w$]*|\b[A-Z][a-z0-9]+[A-Z][\w$]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|"
    r"\b[A-Z]{3,}[A-Z0-9]*\b|\b[a-z]+_[\w]+|'[^'\s]{1,30}'|\"[^\"\s]{1,30}\"|"
    r"\b[A-Z][a-z]+(?:Error|Exception|Warning|Exit|Interrupt)\b|\b\w+\.(?:cfg|py|json|ini|toml)\b"
)
_CONSEQUENCE_RE = re.compile(
    r"\b(?:rais(?:e|es|ed|ing)|throw(?:s|n)?|error|exception|return(?:s|ed)?|discard(?:s|ed)?|"
    r"block(?:s|ed)?|deadlock\w*|ignored?|truncat\w+|set to|exit(?:s|ed)?|fail(?:s|ed)?|"
    r"cancel\w*|replac\w+|overwrit\w+|lost|never|terminat\w+|crash\w*|warn\w*|mangl\w+|"
    r"shared|accumulat\w+|continue|stop(?:s|ped)?|unblock\w*|wait\w*)\b",
    re.I,
)


def fact_kinds(question: str) -> frozenset[str]:
    """The kinds of fact a question asks for (empty when its form names none)."""
    kinds: set[str] = set()
    if _VERSION_Q.search(question):
        kinds.add(VERSION)
    elif _NUMBER_Q.search(question):
        kinds.add(NUMBER)
    if _DEFAULT_Q.search(question):
        kinds.add(DEFAULT)
    if _NAME_Q.search(question) and not kinds & {VERSION, NUMBER}:
        kinds.add(NAME)
    if _CONSEQUENCE_Q.search(question):
        kinds.add(CONSEQUENCE)
    return frozenset(kinds)


def _new(tokens: list[str], question: str) -> list[str]:
    """Tokens the question does not already contain: the answer is what it does not say."""
    asked = question.casefold()
    return [token for token in tokens if token.strip("'\"").casefold() not in asked]


def states(kind: str, sentence: str, question: str) -> bool:
    """Whether `sentence` states a fact of `kind` that the question does not already give."""
    if kind == VERSION:
        return bool(_VERSION_RE.search(sentence))
    if kind == NUMBER:
        without_versions = _VERSIONISH_RE.sub(" ", sentence)
        return bool(_new([m.group(0) for m in _NUMBER_RE.finditer(without_versions)], question))
    if kind == DEFAULT:
        return bool(_DEFAULT_RE.search(sentence))
    if kind == NAME:
        return bool(_new([m.group(0) for m in _IDENTIFIER_RE.finditer(sentence)], question))
    if kind == CONSEQUENCE:
        return bool(_CONSEQUENCE_RE.search(sentence))
    return False


def fact_factor(kinds: frozenset[str], sentence: str, question: str) -> float:
    """How much a sentence's fit to the question's words is worth, given the facts it states.

    1.0 when the question names no kind; otherwise up when the sentence states the kind of
    fact asked, down when it states none of them.
    """
    if not kinds:
        return 1.0
    stated = sum(states(kind, sentence, question) for kind in kinds)
    if not stated:
        return 0.5
    return 1.0 + stated
