"""The name of a reference page's entry, as a quote puts it before a sentence of the entry.

A sentence of a settings or options list rarely says what it describes ("Specifies the
minimum number of updated or deleted tuples needed to trigger a VACUUM."): its subject is the
entry's name, the list item's head. Quoted alone it says nothing of that subject, so it is
quoted under it: "autovacuum_vacuum_threshold: Specifies …". Only a name written as code
counts (a setting, an option, a directive, a function): a plain word at a list item's head is
as likely a page's menu ("Home - Download - Documentation") as an entry.
"""

from __future__ import annotations

import re

# One name written as code: a command-line option (`-a`, `--all`), a name with an underscore,
# a dot, a sigil or a call (`work_mem`, `log.level`, `$ref`, `%l`, `join()`), a camel-case
# directive (`CustomLog`, `maxRetries`), or one lower-case word (`autovacuum`).
_CODE_NAME = re.compile(
    r"--?[A-Za-z][\w-]*"
    r"|[@$%]?[A-Za-z_][\w$]*(?:[._$][\w$]+)+(?:\([^()]*\))?"
    r"|[@$%]?_\w*|%\{?\w+\}?|[@$]?[A-Za-z_][\w$]*\([^()]*\)"
    r"|[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+"
    r"|[a-z][a-z0-9]*"
)
_NAME_LIST = re.compile(rf"(?:{_CODE_NAME.pattern})(?:,\s*(?:{_CODE_NAME.pattern}))*")
# A name and its colon at the start of a quote: how a sentence quoted under its entry opens.
LEADING_ENTRY_LABEL = re.compile(rf"^\s*(?:{_NAME_LIST.pattern})\s*:\s+")


def is_entry_name(label: str) -> bool:
    """Whether `label` names an entry as code does (`autovacuum_vacuum_threshold`, `-a,
    --all`, `CustomLog`, `Queue.get()`), not a heading, a box's field (`Syntax:`) or words a
    flattened table ran together (`pipe format`)."""
    return bool(_NAME_LIST.fullmatch(label.strip()))


def names_entry(name: str, sentence: str) -> bool:
    """Whether the sentence says the name itself, as a whole word (`mode` is not in "model"),
    or the last part of a dotted name (`Queue` for `asyncio.Queue(maxsize=0)`)."""
    parts = [part.strip() for part in name.split("(", 1)[0].split(",") if part.strip()]
    spoken = {*parts, *(part.rsplit(".", 1)[-1] for part in parts)}
    return any(
        re.search(rf"(?<![\w-]){re.escape(part)}(?![\w-])", sentence, re.IGNORECASE)
        for part in spoken
        if part
    )
