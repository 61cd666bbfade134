"""The person's question searched as asked, beside the model's own first query.

Small models rewrite a question into a query that loses what made it findable (a code name,
the exact wording), then answer from whatever that query found. The question as asked often
ranks the answering passage first. So the quick path also searches the question itself once,
and the passages the model's query did not find are added to that first result list: at most
`QUESTION_RESULTS` of them, so a small context window still holds the model's own results.

A question about a qualified name (`json.dumps`) is answered wrongly from a sibling's entry
(`json.dump`) when no result shown names it, and grounding then rightly removes the answer.
So a qualified name of the question that no shown result names is searched for itself, and
the first result that names it is added (`NAMED_RESULTS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.grounding.names import Name, code_names
from engine.sourcing.source_numbers import SEARCH_HEADER

QUESTION_RESULTS = 2
NAMED_RESULTS = 1
# Qualified names searched for per question: each search costs a round trip and prompt room.
MAX_NAMES_SEARCHED = 2
_NUMBERED = re.compile(r"^\[\d+\] ")


def _result_blocks(text: str) -> list[str]:
    """The numbered result blocks of a search result text (none for a failure or no results)."""
    if not text.startswith(SEARCH_HEADER):
        return []
    return [block for block in text.split("\n\n")[1:] if _NUMBERED.match(block)]


def _identity(block: str) -> tuple[str, str]:
    """A result's section title and locator: what makes two results the same passage."""
    lines = block.splitlines()
    title = _NUMBERED.sub("", lines[0])
    return title, lines[1] if len(lines) > 1 else ""


def merged_results(
    first: str,
    extra: str,
    limit: int = QUESTION_RESULTS,
    wanted: Callable[[str], bool] = lambda block: True,
) -> str:
    """`first` with up to `limit` results of `extra` it did not already show, numbered on;
    only results `wanted` accepts.

    When the model's search found nothing (or failed), the question's results stand alone.
    """
    shown = _result_blocks(first)
    if not shown:
        return extra if any(map(wanted, _result_blocks(extra))) else first
    seen = {_identity(block) for block in shown}
    added = [
        block for block in _result_blocks(extra) if _identity(block) not in seen and wanted(block)
    ][:limit]
    renumbered = [
        _NUMBERED.sub(f"[{len(shown) + offset}] ", block, count=1)
        for offset, block in enumerate(added, start=1)
    ]
    return "\n\n".join([first, *renumbered])


def unnamed_names(question: str, shown: str) -> list[Name]:
    """Qualified names of the question (`json.dumps`) that no result in `shown` names."""
    # The results only: the header repeats the query, which may be the question itself.
    passages = "\n\n".join(_result_blocks(shown))
    missing = [n for n in code_names(question) if _qualified(n) and not naming(n)(passages)]
    return missing[:MAX_NAMES_SEARCHED]


# Parts of two characters or more, so not `e.g` or `i.e`; not a file (`setup.py`) or a host.
_QUALIFIED = re.compile(r"[a-z_$][\w$]+(?:\.[a-z_$][\w$]+)+")
_NOT_A_NAME_END = frozenset(
    {"py", "js", "ts", "md", "json", "html", "htm", "txt", "toml", "yaml", "yml", "cfg", "ini"}
    | {"com", "org", "net", "io", "dev", "edu", "gov"}
)


def _qualified(name: Name) -> bool:
    """Whether `name` is a qualified code name (`json.dumps`, `asyncio.Queue.join`)."""
    return (
        _QUALIFIED.fullmatch(name.text) is not None
        and name.text.rsplit(".", 1)[-1] not in _NOT_A_NAME_END
    )


def naming(name: Name) -> Callable[[str], bool]:
    """Whether a text names `name` by its last part, qualified or not (`Queue.join()` names
    `asyncio.Queue.join`; `json.dump(` does not name `json.dumps`)."""
    last = re.compile(rf"(?<!\w){re.escape(name.text.rsplit('.', 1)[-1])}(?!\w)")
    return lambda text: last.search(text.lower()) is not None
