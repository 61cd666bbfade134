"""Code names in a claim and its sources, and when the claim swapped one for a sibling.

A fluent but wrong sentence keeps the words and changes the name: `re.search` for
`re.match`, `QueueEmpty` for `QueueFull`, `__getattr__` for `__delattr__`, `SIGHUP` for
`SIGPIPE`, `asyncio.Condition` for `threading.Condition`. A name the sources lack is a swap
when they name a sibling of it instead; a name with no siblings in the sources is left to
the overlap score. A swap found here is a screen: it marks the sentence, and only a judge
reading the passages (or a reader) settles it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_CODE_NAME = re.compile(
    r"`([^`\s]+)`"  # anything in backticks
    r"|\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\(\))?"  # dotted: functools.lru_cache
    r"|(?<![\w.])(__[a-z]\w*__)"  # dunder: __getattr__
    r"|\b([a-z]+_[\w]+)"  # snake_case: wait_for
    r"|\b((?=[A-Z]\w*[a-z])(?=[A-Z]\w*?[A-Z])[A-Z][A-Za-z0-9]+)\b"  # CamelCase: URLError
    r"|\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|SIG[A-Z]{2,}|[A-Z]{4,})\b"  # constants: SIGPIPE, WARNING
    r"|\b(\w+)\(\)"  # call(): gather()
    r"|\b([a-z_][a-z0-9_]*)\((?=[\w*'\"\[])"  # a call with arguments: partial(func, x)
    r"|(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)"  # a command-line option: --no-prune
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
    if written.startswith("--"):
        # Options of one command stand for each other: `--aggressive` for `--auto`.
        return "--"
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
        if written.startswith("--"):
            written = written.split("=", 1)[0]  # `--prune=<date>` names `--prune`
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


def names_every(names: Sequence[Name], text: str) -> bool:
    """Whether `text` names every one of `names` (its last dotted part will do): a page about
    another function that shares a sentence's other words ("New in version 3.9") says
    nothing of it."""
    folded = text.lower()
    for name in names:
        last = name.text.rsplit(".", 1)[-1]
        if name.text not in folded and not re.search(
            rf"(?<![\w.]){re.escape(last)}(?![\w])", folded
        ):
            return False
    return True
