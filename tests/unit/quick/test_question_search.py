"""The quick path searches the person's question as asked before the model's first turn."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool

from engine.config import settings_from_mapping
from engine.quick.graph import build_quick_graph, final_answer
from engine.sourcing.question_search import merged_results, naming, unnamed_names
from tests.unit.quick.quick_doubles import (
    RecordingChatModel,
    calls_message,
    search,
    search_results,
)

QUESTION = "Which placeholder styles does sqlite3 support?"


CONNECT = ("sqlite3 — connect", "sqlite3.html", "Open a connection to a database file.")
QMARK = ("sqlite3 — placeholders", "sqlite3.html", "Two styles: qmark and named.")
CURSOR = ("sqlite3 — cursor", "sqlite3.html", "A cursor runs statements.")
ROW = ("sqlite3 — rows", "sqlite3.html", "Row objects map names to values.")


def test_only_passages_the_first_search_missed_are_added_numbered_on() -> None:
    first = search_results("sqlite3 connect", CONNECT, CURSOR)
    extra = search_results(QUESTION, QMARK, CONNECT, ROW, ("x", "y.html", "more"))

    merged = merged_results(first, extra, limit=2)

    assert merged.startswith(first)
    added = merged[len(first) :]
    assert "[3] sqlite3 — placeholders\nDocument: sqlite3.html\nTwo styles" in added
    assert "[4] sqlite3 — rows" in added
    assert "connect" not in added  # already shown by the model's own search
    assert "more" not in added  # beyond the limit


def test_a_failed_or_empty_first_search_gives_way_to_the_question() -> None:
    extra = search_results(QUESTION, QMARK)
    assert merged_results("Search failed: timeout", extra) == extra
    assert merged_results('No results for "x".', extra) == extra
    assert merged_results("Search failed: timeout", 'No results for "q".') == (
        "Search failed: timeout"
    )


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class Corpus:
    """A search tool over four passages that matches queries by shared words."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def _search(self, query: str) -> str:
        self.queries.append(query)
        words = set(re.findall(r"\w+", query.lower()))
        found = [p for p in (CONNECT, QMARK, CURSOR, ROW) if words & _words(p[2])]
        return search_results(query, *found) if found else f'No results for "{query}".'

    def tools(self) -> list[BaseTool]:
        return [StructuredTool.from_function(self._search, name="search_web", description="s")]


def quick_graph(model: RecordingChatModel, corpus: Corpus) -> Any:
    return build_quick_graph(model, corpus.tools(), settings_from_mapping({}))


def _passages_turn(model: RecordingChatModel, call: int = 0) -> str:
    """The user turn of numbered passages the model was shown on its `call`-th turn."""
    turns = [m.text for m in model.calls[call].messages if isinstance(m, HumanMessage)]
    return next(turn for turn in turns if "Passages:" in turn)


async def test_the_question_is_searched_before_the_model_speaks() -> None:
    corpus = Corpus()
    answer = "sqlite3 supports the qmark and named styles [1]."
    model = RecordingChatModel.sequence([answer])

    state = await quick_graph(model, corpus).ainvoke({"messages": [HumanMessage(QUESTION)]})

    assert corpus.queries == [QUESTION]
    assert len(model.calls) == 1  # the answer in one call
    shown = _passages_turn(model)
    assert shown.startswith(f"Question: {QUESTION}")
    assert "[1] sqlite3 — placeholders\nTwo styles" in shown
    # No tool turn is left for a chat template to drop: the passages are the user's turn.
    assert not any(isinstance(m, ToolMessage) for m in model.calls[0].messages)
    assert "[1] sqlite3 — placeholders" in final_answer(state)  # listed, so it is verifiable


async def test_a_model_that_searches_more_gets_results_numbered_on() -> None:
    corpus = Corpus()
    model = RecordingChatModel.sequence(
        [calls_message(search("cursor")), "A cursor runs statements [2]."]
    )

    await quick_graph(model, corpus).ainvoke({"messages": [HumanMessage(QUESTION)]})

    assert corpus.queries == [QUESTION, "cursor"]
    [more] = [m for m in model.calls[1].messages if isinstance(m, ToolMessage)]
    # The question's search showed [1]; the model's own continues the numbering.
    assert "[2] sqlite3 — cursor" in more.text
    assert "Passages:" in _passages_turn(model, 1)


async def test_the_offline_model_reads_the_engines_search_as_a_tool_result() -> None:
    corpus = Corpus()
    model = RecordingChatModel.sequence(["It takes the qmark and named styles [1]."])
    graph = build_quick_graph(model, corpus.tools(), settings_from_mapping({}), chat_model=False)

    await graph.ainvoke({"messages": [HumanMessage(QUESTION)]})

    [result] = [m for m in model.calls[0].messages if isinstance(m, ToolMessage)]
    assert result.text.startswith(f'Search results for "{QUESTION}"')


DUMP = ("json — dump", "json.html", "json.dump(obj, fp) If ensure_ascii is true, escaped.")
DUMPS = ("json — dumps", "json.html#dumps", "json.dumps(obj) Serialize obj to a str.")
LOADS = ("json — loads", "json.html#loads", "json.loads(s) Deserialize a json str.")
ENCODER = ("json — encoder", "json.html#enc", "json ensure_ascii: the guarantee when true.")


class JsonCorpus(Corpus):
    """The two passages sharing most words with the query, as a ranked index returns them."""

    def _search(self, query: str) -> str:
        self.queries.append(query)
        words = _words(query)
        ranked = sorted(
            (p for p in (DUMP, LOADS, ENCODER, DUMPS) if words & _words(p[2])),
            key=lambda p: -len(words & _words(p[2])),
        )
        return search_results(query, *ranked[:2]) if ranked else f'No results for "{query}".'


def test_a_qualified_name_is_missing_until_a_result_names_it() -> None:
    question = "What does json.dumps guarantee?"
    # The header names it (the question was the query); the results do not.
    [name] = unnamed_names(question, search_results(question, DUMP))
    assert name.text == "json.dumps"
    assert not unnamed_names(question, search_results("q", DUMPS))
    # Named by its last part with its class before it, as documentation writes it.
    queue_join = ("Queues", "asyncio-queue.html", "Queue.join() blocks until all are done.")
    assert not unnamed_names("What does asyncio.Queue.join() do?", search_results("q", queue_join))
    assert not unnamed_names("Which styles does sqlite3 take?", "")  # nothing qualified
    # Abbreviations, files and hosts are no names to search for.
    for question in (
        "What, e.g. for a queue, blocks?",
        "What does setup.py do?",
        "Is example.com up?",
    ):
        assert not unnamed_names(question, "")


async def test_a_name_no_result_names_is_searched_and_the_entry_naming_it_added() -> None:
    corpus = JsonCorpus()
    question = "What does json.dumps guarantee when ensure_ascii is true?"
    model = RecordingChatModel.sequence(["It escapes non-ASCII characters [3]."])

    await quick_graph(model, corpus).ainvoke({"messages": [HumanMessage(question)]})

    assert corpus.queries == [question, "json.dumps"]
    assert "[3] json — dumps\njson.dumps(obj)" in _passages_turn(model)


def test_of_the_names_results_only_one_that_names_it_is_added() -> None:
    [name] = unnamed_names("What does json.dumps return?", "")
    merged = merged_results(
        search_results("q", DUMP), search_results("json.dumps", LOADS, DUMPS), 1, naming(name)
    )
    assert "[2] json — dumps" in merged and "json.loads" not in merged


def test_the_passages_turn_names_no_locator_but_the_results_keep_theirs() -> None:
    from engine.quick.retrieval import passages_turn

    results = search_results("q", QMARK)
    turn = str(passages_turn("Which styles?", results).content)

    # The model cites by number; the engine maps the number to the source.
    assert "[1] sqlite3 — placeholders\nTwo styles" in turn
    assert "Document:" not in turn and "sqlite3.html" not in turn
    assert "Document: sqlite3.html" in results
