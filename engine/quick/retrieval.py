"""The quick path searches before the model speaks, and hands it numbered passages.

A small model asked to go and find the evidence writes a poor query, or none, and then answers
from memory; the same model given the passages answers from them (measured on the bundled
1.5B model: 12 of 15 facts from retrieve-then-answer, 4 of 15 from a tool loop). So the
engine runs the first search itself, with the question as asked, and adds a result naming
each qualified name of the question that no result names. The results are cut to a passage
budget sized to the model's window and kept in the conversation as the engine's own search
call and its tool result: the source catalog, the evidence and the registry read them as they
read any search. The model's request shows them as one user turn (the question, the numbered
passages, how to answer), which every chat template renders, tool role or not.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from engine.messages import message_text
from engine.middleware.first_search import SEARCH_TOOL
from engine.sourcing.question_search import (
    NAMED_RESULTS,
    merged_results,
    naming,
    unnamed_names,
)
from engine.sourcing.source_numbers import SEARCH_HEADER
from engine.tools.preprocess import best_passage

RETRIEVAL_CALL_ID = "call_engine_retrieval"
# A quick answer needs the few passages that state the fact, not a page of them: every
# passage is prompt the model reads before it writes a word (minutes on a CPU server).
# About what a retrieve-then-answer script shows (five index chunks of up to 1,000 chars),
# spread over more results: each result shows only the stretch of its passage that best
# matches the question. Measured without a model over the eight shipped sets, the fact is in
# what is shown for 263 of 300 questions at 800 chars per result within 4,000 (264 at the
# search's 1,200 within 5,000; the script's top five show it for 258). Every 1,000 chars are
# about 4 s of prompt on the bundled 1.5B on two cores, so the cut is at 3,500: 259 of those
# 300 (265 at 4,000, on the same sets with the Git development set for the PostgreSQL hold-out).
MAX_PASSAGE_CHARS = 3500
RESULT_PASSAGE_CHARS = 800
MIN_PASSAGE_CHARS = 1500
WINDOW_DIVISOR = 6
# A passage cut shorter than this is more noise than evidence: it is left out instead.
MIN_CUT_PASSAGE_CHARS = 300

# Every word of the reply is generated one token at a time (a few dozen a second on a CPU
# server): the direct answer is what was asked, so the shape asks for it and little more.
ANSWER_SHAPE = (
    "Answer the question from these passages in one or two sentences, the direct answer "
    "first. Put the number of the passage each fact comes from in square brackets right "
    "after it, like [1]. Use the passages' own words for names, numbers and defaults. If the "
    "passages do not answer the question, say so in one sentence."
)


def passage_budget(request_chars: int) -> int:
    """Characters of passages the first prompt may hold, from the request's size cap."""
    return max(MIN_PASSAGE_CHARS, min(MAX_PASSAGE_CHARS, request_chars // WINDOW_DIVISOR))


def _blocks(results: str) -> tuple[str, list[str]]:
    """The header line and the numbered result blocks of a search result text."""
    parts = results.split("\n\n")
    return parts[0], [part for part in parts[1:] if part.startswith("[")]


def _has_locator(lines: list[str]) -> bool:
    """Whether a result block's second line names its source (`URL:` or `Document:`)."""
    return len(lines) > 1 and lines[1].startswith(("URL: ", "Document: "))


def _focused_block(block: str, question: str, limit: int) -> str:
    """A result block whose passage is cut to the stretch that best matches `question`.

    A block is its numbered title line, a `URL:` or `Document:` line, then the passage (the
    shape `format_results` writes); the lines that name the source are kept whole.
    """
    lines = block.split("\n")
    named = 2 if _has_locator(lines) else 1
    passage = "\n".join(lines[named:])
    if len(passage) <= limit:
        return block
    return "\n".join([*lines[:named], best_passage(passage, question, limit)])


def focused(results: str, question: str, limit: int = RESULT_PASSAGE_CHARS) -> str:
    """Search results whose passages each show their best `limit` characters for `question`."""
    if not results.startswith(SEARCH_HEADER):
        return results
    header, blocks = _blocks(results)
    return "\n\n".join([header, *(_focused_block(b, question, limit) for b in blocks)])


def _cut(block: str, room: int) -> str:
    """A result block cut to `room` characters at a sentence end, or "" when too little fits."""
    if len(block) <= room:
        return block
    if room < MIN_CUT_PASSAGE_CHARS:
        return ""
    head = block[:room]
    end = max(head.rfind(". "), head.rfind(".\n"))
    return head[: end + 1] if end > room // 2 else head.rstrip() + "…"


def within_budget(results: str, budget: int) -> str:
    """The results whose passages fit `budget`, best first, the last one cut if need be.

    Results are numbered in rank order; the ones left out are the last ones, so the numbers
    shown stay 1..n without gaps.
    """
    if not results.startswith(SEARCH_HEADER):
        return results[:budget]  # a failure, no results, or a search tool of another shape
    header, blocks = _blocks(results)
    kept: list[str] = []
    room = budget
    for block in blocks:
        piece = _cut(block, room)
        if not piece:
            break
        kept.append(piece)
        room -= len(piece)
    return "\n\n".join([header, *kept])


async def _search(tool: BaseTool, query: str) -> str:
    """The search tool's text; "" when it fails, so a failed extra search only adds nothing."""
    try:
        return str(await tool.ainvoke({"query": query}))
    except Exception:
        return ""


async def retrieve(question: str, tool: BaseTool, budget: int) -> str:
    """The question's search results within `budget`, with a result naming each qualified
    name of the question that none of them names."""
    found = await _search(tool, question)
    shown = within_budget(focused(found, question), budget)
    results = shown if found else f'No results for "{question}".'
    for name in unnamed_names(question, results):
        named = focused(await _search(tool, name.text), f"{name.text} {question}")
        results = merged_results(results, named, NAMED_RESULTS, naming(name))
    return results


def retrieval_messages(question: str, results: str) -> list[BaseMessage]:
    """The engine's search as a call and its result, as a model's own search would appear."""
    call = {
        "name": SEARCH_TOOL,
        "args": {"query": question},
        "id": RETRIEVAL_CALL_ID,
        "type": "tool_call",
    }
    return [
        AIMessage(content="", tool_calls=[call]),
        ToolMessage(content=results, tool_call_id=RETRIEVAL_CALL_ID, name=SEARCH_TOOL),
    ]


def is_retrieval_call(message: BaseMessage) -> bool:
    return isinstance(message, AIMessage) and any(
        call.get("id") == RETRIEVAL_CALL_ID for call in message.tool_calls
    )


def _without_locator(block: str) -> str:
    """A result block without its `URL:` or `Document:` line.

    The model cites a passage by its number, which the engine maps to the source; the line
    naming the source is prompt it reads for nothing (about 40 tokens of 1,000 here).
    """
    lines = block.split("\n")
    if _has_locator(lines):
        del lines[1]
    return "\n".join(lines)


def passages_turn(question: str, results: str) -> HumanMessage:
    """The user turn a model answers from: the question, the numbered passages, the shape."""
    _header, blocks = _blocks(results) if results.startswith(SEARCH_HEADER) else ("", [])
    if blocks:
        body = "Passages:\n\n" + "\n\n".join(map(_without_locator, blocks))
    elif results.startswith(("No results", SEARCH_HEADER)) or not results.strip():
        body = "The search found no passages for this question."
    else:  # a search tool that writes its results in a shape of its own
        body = f"Passages:\n\n{results}"
    return HumanMessage(content=f"Question: {question}\n\n{body}\n\n{ANSWER_SHAPE}")


def with_passages_turn(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The conversation with the engine's search folded into one user turn of passages."""
    for position, message in enumerate(messages):
        if not is_retrieval_call(message) or position == 0:
            continue
        question = messages[position - 1]
        result = messages[position + 1] if position + 1 < len(messages) else None
        if not isinstance(question, HumanMessage) or not isinstance(result, ToolMessage):
            return messages
        turn = passages_turn(message_text(question), message_text(result))
        return [*messages[: position - 1], turn, *messages[position + 2 :]]
    return messages
