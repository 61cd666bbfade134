"""The passages a research unit starts from: its queries, searched before its first turn.

A small model given the evidence beats one asked to go and find it. So each unit's queries
are searched with the unit's own search tool (same registry, same events, same results as the
researcher's own calls) before the researcher speaks, and the passages are numbered in its
first message within a share of the model's context window. The researcher's findings cite
those numbers; `seed_catalog` maps them to sources for the evidence extraction.

A query that names a source (a URL, or a document key such as `routine-vacuuming.html`, as
a planner copies them from its search results) is read with the unit's fetch tool, and the
source's passages that best match the unit's topic are taken: searched as words, a file name
finds pages that mention "html", not the page it names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage

from engine.citations.registry import SourceRegistry
from engine.config import Settings
from engine.messages import message_text
from engine.models.compat.normalize import strip_reasoning
from engine.nodes.deps import EngineDeps
from engine.sourcing.copied_run import CopiedRun
from engine.sourcing.echo import copy_start, copy_watch
from engine.sourcing.source_numbers import SourceCatalog
from engine.tools.rerank import score_chunks, split_chunks

MAX_QUERIES = 4
PASSAGE_CHARS = 700
# Passages taken from a source a query names, best first.
NAMED_SOURCE_PASSAGES = 3
# The passages get an eighth of the window: the researcher's prompt, tool schemas and its
# own tool loop need the rest, and a CPU model reads a prompt at tens of tokens a second.
PASSAGE_WINDOW_SHARE = 8
CHARS_PER_TOKEN = 3
PASSAGES_HEADING = "Passages retrieved for this topic (cite them by number, like [1]):"


@dataclass(frozen=True)
class Passage:
    number: int
    title: str
    locator: str
    text: str


class _SearchTap:
    """Records into the unit's registry and keeps, per search, what each result showed."""

    def __init__(self, registry: SourceRegistry) -> None:
        self.registry = registry
        self.searches: list[list[tuple[str, str, str]]] = [[]]
        # While a named source is read: what its passages are ranked against (else None).
        self.reading_for: str | None = None

    def add_url(self, url: str, title: str | None = None, passage: str | None = None) -> bool:
        self._shown(title or url, url, passage or "")
        return self.registry.add_url(url, title, passage)

    def add_document(self, key: str, title: str | None = None, passage: str | None = None) -> bool:
        self._shown(title or key, key, passage or "")
        return self.registry.add_document(key, title, passage)

    def _shown(self, title: str, locator: str, text: str) -> None:
        if self.reading_for is None:
            self.searches[-1].append((title, locator, text))
            return
        shown = {piece for _, _, piece in self.searches[-1]}
        for piece in best_pieces(text, self.reading_for, NAMED_SOURCE_PASSAGES):
            if piece not in shown:  # a redirected page is recorded under both its addresses
                self.searches[-1].append((title, locator, piece))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.registry, name)


def passage_budget_chars(settings: Settings) -> int:
    return settings.model_max_input_tokens // PASSAGE_WINDOW_SHARE * CHARS_PER_TOKEN


async def retrieve_passages(
    deps: EngineDeps,
    registry: SourceRegistry,
    unit_id: str,
    focus: str,
    queries: list[str],
) -> list[Passage]:
    """Each query searched once with the unit's search tool; the results numbered, the best
    of every search first, within the budget. Empty without search or queries."""
    if not deps.has_search:
        return []
    tap = _SearchTap(registry)
    tools = {tool.name: tool for tool in deps.tools_for(cast(Any, tap), unit_id, focus)}
    search, fetch = tools.get("search_web"), tools.get("fetch_url")
    if search is None:
        return []
    for query in [q.strip() for q in queries if q.strip()][:MAX_QUERIES]:
        try:
            if fetch is not None and names_a_source(query):
                tap.reading_for = focus
                try:
                    await fetch.ainvoke({"url": query})
                finally:
                    tap.reading_for = None
            if not tap.searches[-1]:  # not a source's name, or one that could not be read
                await search.ainvoke({"query": query})
        except Exception:  # noqa: S112 - a failed search leaves the researcher its own tools
            continue
        tap.searches.append([])
    return numbered_passages(tap.searches, passage_budget_chars(deps.settings))


def names_a_source(query: str) -> bool:
    """A query that is one locator: a web address, or a file name with its extension."""
    if any(char.isspace() for char in query):
        return False
    if query.lower().startswith(("http://", "https://")):
        return True
    name = query.rsplit("/", 1)[-1]
    stem, dot, extension = name.rpartition(".")
    return bool(dot and stem and extension.isalnum() and not extension.isdigit())


def best_pieces(text: str, focus: str, count: int) -> list[str]:
    """The `count` chunks of `text` that best match `focus`, best first (the head when none
    matches)."""
    chunks = [chunk.text for chunk in split_chunks(text, PASSAGE_CHARS, PASSAGE_CHARS)]
    if not chunks:
        return []
    scores = score_chunks(chunks, focus)
    ranked = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))
    return [chunks[i] for i in ranked[:count]]


def numbered_passages(
    searches: list[list[tuple[str, str, str]]], budget_chars: int
) -> list[Passage]:
    """Results taken rank by rank across the searches (each query's best first), repeats
    dropped, numbered from 1 until the budget is spent."""
    passages: list[Passage] = []
    seen: set[tuple[str, str]] = set()
    used = 0
    depth = max((len(results) for results in searches), default=0)
    for rank in range(depth):
        for results in searches:
            if rank >= len(results):
                continue
            title, locator, text = results[rank]
            text = _clip(" ".join((text or title).split()))
            if (locator, text) in seen:
                continue
            size = len(title) + len(locator) + len(text) + 20
            if used + size > budget_chars:
                return passages
            seen.add((locator, text))
            used += size
            passages.append(Passage(len(passages) + 1, title, locator, text))
    return passages


def _clip(text: str) -> str:
    if len(text) <= PASSAGE_CHARS:
        return text
    cut = text.rfind(" ", 0, PASSAGE_CHARS)
    return text[: cut if cut > 0 else PASSAGE_CHARS] + " …"


def passages_block(passages: list[Passage]) -> str:
    """The passages as the researcher reads them, in the search results' own shape."""
    blocks = [PASSAGES_HEADING]
    for passage in passages:
        where = "URL" if "://" in passage.locator else "Document"
        blocks.append(
            f"[{passage.number}] {passage.title}\n{where}: {passage.locator}\n{passage.text}"
        )
    return "\n\n".join(blocks)


def seed_catalog(passages: list[Passage]) -> SourceCatalog:
    """The passages' numbers as sources, for the findings that cite them."""
    catalog = SourceCatalog({})
    for passage in passages:
        catalog.entries[passage.number] = (passage.title, passage.locator)
        catalog.passages[passage.number] = passage.text
    return catalog


def copying_passages(passages: list[Passage]) -> Callable[[str], bool]:
    """A watch for a researcher's streamed reply: true once a paragraph opens with a
    passage's header line and goes on to repeat that passage, or once the reply copies a
    passage at more length than a finding quotes, in any shape (reasoning blocks aside)."""
    watch = copy_watch(seed_catalog(passages), with_passage=True)
    run = CopiedRun(passage.text for passage in passages)

    def copying(text: str) -> bool:
        reply = strip_reasoning(text)
        return watch(reply) or run.start(reply) is not None

    return copying


def with_copy_finished(messages: list[BaseMessage], passages: list[Passage]) -> list[BaseMessage]:
    """The unit's messages, its closing reply cut where it began copying the passages back
    instead of writing findings.

    A small model does that often (two units of three in a PostgreSQL report), and the
    transport stops the reply once it has copied a header line and the start of its passage,
    or a passage's words at length in any other shape (`copying_passages`): the copy would
    run to the token cap, a minute of generation on a CPU server, for text the engine holds
    already. What the model wrote before the copy stays; the findings it did not write are
    quoted from the passages, the sentences that best match its topic
    (`findings_from_messages`), not the passages in the order a page runs: a page opens with
    its title, a table of its settings and its contents.
    """
    if not passages or not messages or not isinstance(messages[-1], AIMessage):
        return messages
    closing = messages[-1]
    if closing.tool_calls:
        return messages
    text = message_text(closing)
    starts = [
        copy_start(text, seed_catalog(passages), with_passage=True),
        CopiedRun(passage.text for passage in passages).start(text),
    ]
    start = min((at for at in starts if at is not None), default=None)
    if start is None:
        return messages
    finished = closing.model_copy(update={"content": text[:start].rstrip()})
    return [*messages[:-1], finished]
