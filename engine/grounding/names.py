"""Code names in a claim and its sources, and when the claim swapped one for a sibling.

A fluent but wrong sentence keeps the words and changes the name: `re.search` for
`re.match`, `QueueEmpty` for `QueueFull`, `__getattr__` for `__delattr__`, `SIGHUP` for
`SIGPIPE`, `asyncio.Condition` for `threading.Condition`. A name the sources lack is a swap
when they name a sibling of it instead; a name with no siblings in the sources is left to
the overlap score. Two names the sources both say can still trade places: a claim that puts
one where the sources put the other ("object_hook takes priority" against "object_pairs_hook
takes priority") is a swap of roles (`role_swap`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.grounding.words import stemmed_words

_CODE_NAME = re.compile(
    r"`([^`\s]+)`"  # anything in backticks
    r"|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\(\))?"  # dotted: functools.lru_cache
    r"|(?<![\w.])(__[a-z]\w*__)"  # dunder: __getattr__
    r"|\b([a-z]+_[\w]+)"  # snake_case: wait_for
    r"|\b((?=[A-Z]\w*[a-z])(?=[A-Z]\w*?[A-Z])[A-Z][A-Za-z0-9]+)\b"  # CamelCase: URLError
    r"|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|SIG[A-Z]{2,}|[A-Z]{4,})\b"  # constants: SIGPIPE, WARNING
    r"|\b(\w+)\(\)"  # call(): gather()
    r"|\b([a-z_][a-z0-9_]*)\((?=[\w*'\"\[])"  # a call with arguments: partial(func, x)
)
_CAMEL_TAIL = re.compile(r"[A-Z][a-z0-9]+$")
_CAMEL_HEAD = re.compile(r"[A-Z][a-z0-9]+(?=[A-Z])")
# Words that end a class name and say what kind of thing it is.
_KIND_OF_ERROR = {"Error", "Exception", "Warning"}
# Python's built-in exceptions whose names do not end in one of those words: each is as much
# a sibling of `ValueError` as `TypeError` is.
_OTHER_EXCEPTIONS = frozenset(
    {"BaseException", "KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration"}
    | {"StopAsyncIteration", "BaseExceptionGroup", "ExceptionGroup"}
)
# Upper-case words that are abbreviations in prose, not constants a sentence could swap.
_PROSE_CAPS = frozenset(
    [
        "JSON",
        "HTTP",
        "HTTPS",
        "HTML",
        "POSIX",
        "UNIX",
        "UTF8",
        "ASCII",
        "TODO",
        "NOTE",
        "NULL",
        "TRUE",
        "FALSE",
        "WARN",
    ]
)


@dataclass(frozen=True)
class Name:
    """A code name, folded, with what makes its siblings.

    `family` is what a swapped-in name would share: "Error" for `CancelledError` (a class
    named by its kind), "re." for `re.search` (a function of a module), "__" for dunders,
    "CAPS" for constants, "()" for a bare call; "" for names with no family (`dataclass`),
    which are never called swapped.
    """

    text: str
    family: str
    head: str = ""  # "Queue" of QueueEmpty: QueueFull is a sibling too
    module: str = ""  # "asyncio" of asyncio.Condition: threading.Condition is a sibling


def _family(written: str, group: int, called: bool) -> str:
    module, _, last = written.rpartition(".")
    if group == 2:
        # Methods (`__getattr__()`, `__eq__()`) swap for each other; attributes such as
        # `__dict__` and `__name__` are not siblings of anything.
        return "__()" if called else ""
    if group == 5:
        return "CAPS"
    if group in (6, 7) and not module:
        return "()"
    if last in _OTHER_EXCEPTIONS:
        return "Error"
    tail = _CAMEL_TAIL.search(last)
    if last[:1].isupper() and tail and tail.start() > 0:
        return "Error" if tail.group(0) in _KIND_OF_ERROR else tail.group(0)
    if module and last[:1].islower():
        return module.lower() + "."
    return ""


def code_names(text: str) -> list[Name]:
    names: dict[str, Name] = {}
    for match in _CODE_NAME.finditer(text):
        group = next(i for i, found in enumerate(match.groups()) if found)
        written = match.group(group + 1).strip("().,:;")
        name = written.lower()
        if not name or name.replace(".", "").isdigit() or written in _PROSE_CAPS:
            continue
        module, _, last = written.rpartition(".")
        head = _CAMEL_HEAD.match(last)
        family = _family(written, group, text.startswith("()", match.end()))
        names.setdefault(name, Name(name, family, head.group(0) if head else "", module.lower()))
    return list(names.values())


def found_in(name: Name, words: frozenset[str], text: str, names: Iterable[Name]) -> bool:
    """Whether the sources say `name`: as written, or by its last part.

    `asyncio.wait_for` is found in a passage that names `wait_for`; `copy.copy` is not found
    in one that only says "copied" and `copy.deepcopy`, which then shows it swapped.
    """
    if name.text in text:
        return True
    last = name.text.rsplit(".", 1)[-1]
    if "." in name.text:
        said = [other for other in names if other.text.rsplit(".", 1)[-1] == last]
        # `Condition` of `threading.Condition` does not say `asyncio.Condition`.
        if any(not (other.module and name.module) for other in said):
            return True
        # The last part said on its own ("after shutdown"), not as a module of another
        # name (`copy.deepcopy` does not say `copy.copy`).
        return re.search(rf"(?<![\w.]){re.escape(last)}(?![\w.])", text) is not None
    return last in words


def sibling(name: Name, others: Iterable[Name]) -> Name | None:
    """A name of the sources that could stand where the claim put `name` (a swap)."""
    for other in others:
        if other.text == name.text:
            continue
        same_last = other.text.rsplit(".", 1)[-1] == name.text.rsplit(".", 1)[-1]
        if name.module and other.module and other.module != name.module and same_last:
            return other
        if name.family and other.family == name.family:
            return other
        if name.head and other.head == name.head:
            return other
    return None


# Where one clause ends and the next begins, for who stands next to whom: punctuation, a
# sentence's full stop (not the dot of `re.match`), a bracket (not the pair of `wait()`) and a
# dash between spaces.
_SEGMENT_BREAK = re.compile(r"[,;:!?\[\]]|\.(?!\w)|\((?!\))|(?<!\()\)|\s[-–—]\s")
_TOKEN = re.compile(r"`[^`\s]+`|[A-Za-z_][\w.]*\w(?:\(\))?|\w+")


@dataclass(frozen=True)
class Roles:
    """Which code names a text puts beside which words.

    `beside` holds (name, "<" for the word before it or ">" for the word after it, that
    word, stemmed); names listed together share their neighbours ("sys.prefix and
    sys.exec_prefix point"). `within` holds (name, a word of the same clause).
    """

    beside: frozenset[tuple[str, str, str]]
    within: frozenset[tuple[str, str]]

    def __or__(self, other: Roles) -> Roles:
        return Roles(self.beside | other.beside, self.within | other.within)


NO_ROLES = Roles(frozenset(), frozenset())


def _same(one: str, other: str) -> bool:
    """`asyncio.wait_for` is `wait_for`; `urllib.urlopen` is not `urllib2.urlopen`."""
    return one == other or one.endswith("." + other) or other.endswith("." + one)


@lru_cache(maxsize=16_384)
def _item(token: str) -> tuple[bool, str] | None:
    """(True, the name) for a code name, (False, the word stemmed) for a content word."""
    plain = token.isalpha() and (token.islower() or token[1:].islower())
    names = [] if plain else code_names(token)
    if names:
        return True, names[0].text.strip("`").removesuffix("()")
    words = stemmed_words(token)
    if len(words) == 1 and not token.isdigit():
        return False, next(iter(words))
    return None


def roles(text: str) -> Roles:
    """The words beside each code name of `text`, and the words of its clauses: "Unlike
    wait_for(), wait() does not cancel" puts `wait_for` after "unlike" and `wait` before
    "cancel"."""
    beside: set[tuple[str, str, str]] = set()
    within: set[tuple[str, str]] = set()
    for segment in _SEGMENT_BREAK.split(text):
        items: list[tuple[bool, str]] = []  # (is a name, its folded text or stemmed word)
        for token in _TOKEN.findall(segment):
            item = _item(token)
            if item is not None:
                items.append(item)
        words_here = [item for is_name, item in items if not is_name]
        for index, (is_name, name) in enumerate(items):
            if not is_name:
                continue
            within.update((name, word) for word in words_here)
            before = [item for item in items[:index] if not item[0]]
            after = [item for item in items[index + 1 :] if not item[0]]
            nearest = [("<", before[-1:]), (">", after[:1])]
            beside.update((name, side, item[0][1]) for side, item in nearest if item)
    return Roles(frozenset(beside), frozenset(within))


def role_swap(claim: Roles, sources: Roles) -> tuple[str, str] | None:
    """(the claim's name, the source's) when the claim puts a name of its sources where they
    put another: "Unlike wait(), wait_for() does not cancel" against "Unlike wait_for(),
    wait() does not cancel". The sources must never say the claim's name in a clause with
    the word the claim puts beside it, and must put the other name right beside that word,
    on the same side."""
    source_names = {name for name, _, _ in sources.beside} | {name for name, _ in sources.within}
    for name, side, word in sorted(claim.beside):
        if not any(_same(name, said) for said in source_names):
            continue
        if any(_same(name, said) and here == word for said, here in sources.within):
            continue
        for other, other_side, beside in sorted(sources.beside):
            if other_side == side and beside == word and not _same(name, other):
                return name, other
    return None


# A clause is matched with the source clause saying this share of its words besides names,
# and at least MIN_CONTEXT_SHARED of them.
CONTEXT_SHARE = 0.6
MIN_CONTEXT_SHARED = 3

# (the words of a clause besides its code names, stemmed; the names it says)
NamedClause = tuple[frozenset[str], tuple[Name, ...]]


def named_clauses(text: str) -> tuple[NamedClause, ...]:
    """Each clause of `text` with its code names kept apart from its other words."""
    found = []
    for segment in _SEGMENT_BREAK.split(text):
        names = tuple(code_names(segment))
        found.append((stemmed_words(_CODE_NAME.sub(" ", segment)), names))
    return tuple(found)


def context_swap(
    claim: Sequence[NamedClause], sources: Sequence[NamedClause]
) -> tuple[str, str] | None:
    """(the claim's name, the source's) when the source clause that says the rest of a claim
    clause names a sibling where the claim names another ("a missing parent makes mkdir()
    raise FileExistsError" against "a missing parent raises FileNotFoundError"), and no
    source clause that says as much names the claim's."""
    for words, names in claim:
        if len(words) < MIN_CONTEXT_SHARED or not any(name.family for name in names):
            continue
        shared = [len(words & other) for other, _ in sources]
        most = max(shared, default=0)
        if most < MIN_CONTEXT_SHARED or most < CONTEXT_SHARE * len(words):
            continue
        best = [clause for count, clause in zip(shared, sources, strict=True) if count == most]
        there = [name for _, group in best for name in group]
        words_there = frozenset().union(*(other for other, _ in best))
        others = [n for n in there if not any(_same(n.text, mine.text) for mine in names)]
        for name in names:
            said_plainly = stemmed_words(name.text.rsplit(".", 1)[-1]) <= words_there
            if said_plainly or any(_same(name.text, said.text) for said in there):
                continue
            swapped = sibling(name, others)
            if swapped is not None:
                return name.text, swapped.text
    return None
