"""Deterministic context compaction for the quick path's model requests.

Long tool chains can outgrow the model's window. Before each model call the request is shrunk,
without any model help, in passes that each stop as soon as the request fits:

1. older tool outputs (oldest first) are trimmed to their opening plus the sources they named;
2. older tool outputs are condensed to one line listing those sources;
3. the newest tool outputs are truncated to whatever room is left;
4. earlier assistant text is shortened (its tool calls stay intact).

System and human messages are never touched, and tool messages are rewritten rather than
dropped so every tool call keeps its answer (chat APIs reject orphaned tool calls). Source
URLs and document keys survive the first two passes so the model can still cite them.
Compaction is a view of the request: the graph's state keeps every message whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from engine.config import Settings
from engine.messages import message_chars, message_text

# Conservative characters-per-token for sizing a request from a token window; real English
# text averages nearer four, so this leaves room for the tool schemas and the answer.
CHARS_PER_TOKEN = 3
WINDOW_SHARE = 0.8
TRIMMED_HEAD_CHARS = 800
SHORTENED_AI_TEXT_CHARS = 200
MAX_SOURCES_KEPT = 10

_SOURCE_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'\])]+", re.IGNORECASE)
_SOURCE_LINE_RE = re.compile(r"^\s*(url|source|document|key)\s*:\s*(\S.*)$", re.IGNORECASE)


def context_char_budget(settings: Settings) -> int:
    """The request size, in characters, that fits the configured model window."""
    return int(settings.model_max_input_tokens * CHARS_PER_TOKEN * WINDOW_SHARE)


def request_chars(messages: Iterable[BaseMessage]) -> int:
    return sum(message_chars(message) for message in messages)


def sources_in(text: str) -> list[str]:
    """URLs and document keys named in a tool output, in order, without repeats."""
    found: list[str] = []
    for line in text.splitlines():
        labelled = _SOURCE_LINE_RE.match(line)
        candidates = _SOURCE_RE.findall(line) or ([labelled.group(2).strip()] if labelled else [])
        for candidate in candidates:
            cleaned = candidate.rstrip(".,;:")
            if cleaned and cleaned not in found:
                found.append(cleaned)
        if len(found) >= MAX_SOURCES_KEPT:
            break
    return found[:MAX_SOURCES_KEPT]


def _trimmed(text: str) -> str:
    if len(text) <= TRIMMED_HEAD_CHARS:
        return text
    head = text[:TRIMMED_HEAD_CHARS].rstrip()
    sources = [source for source in sources_in(text) if source not in head]
    lines = [head, f"[… {len(text) - len(head)} characters of older output trimmed]"]
    if sources:
        lines.append("Sources in the trimmed part: " + ", ".join(sources))
    return "\n".join(lines)


def _condensed(text: str) -> str:
    sources = sources_in(text)
    summary = f"[older tool output condensed from {len(text)} characters"
    if sources:
        return summary + "; sources: " + ", ".join(sources) + "]"
    return summary + "]"


def _truncated(text: str, keep: int) -> str:
    if keep >= len(text):
        return text
    marker = f"\n[… truncated {len(text) - max(keep, 0)} characters to fit the model window]"
    return text[: max(keep - len(marker), 0)].rstrip() + marker


@dataclass
class _Pass:
    indices: list[int]
    rewrite: Callable[[str, int], str]  # (text, characters still over budget) -> new text


def _newest_tool_indices(messages: Sequence[BaseMessage]) -> set[int]:
    """Tool messages answering the latest assistant turn that called tools."""
    last_call = max(
        (i for i, m in enumerate(messages) if isinstance(m, AIMessage) and m.tool_calls),
        default=-1,
    )
    return {i for i, m in enumerate(messages) if i > last_call and isinstance(m, ToolMessage)}


def compact_messages(messages: Sequence[BaseMessage], max_chars: int) -> list[BaseMessage]:
    """The same conversation, shrunk deterministically until it is at most `max_chars`.

    Returns the messages unchanged when they already fit. If even the untouchable system and
    human messages exceed the budget the result is as small as compaction can make it.
    """
    result = list(messages)
    total = request_chars(result)
    if total <= max_chars:
        return result
    newest = _newest_tool_indices(result)
    older_tools = [
        i for i, m in enumerate(result) if isinstance(m, ToolMessage) and i not in newest
    ]
    newest_largest_first = sorted(newest, key=lambda i: -message_chars(result[i]))
    ai_texts = [i for i, m in enumerate(result) if isinstance(m, AIMessage) and message_text(m)]
    passes = [
        _Pass(older_tools, lambda text, _over: _trimmed(text)),
        _Pass(older_tools, lambda text, _over: _condensed(text)),
        _Pass(newest_largest_first, lambda text, over: _truncated(text, len(text) - over)),
        _Pass(
            ai_texts,
            lambda text, over: _truncated(text, max(len(text) - over, SHORTENED_AI_TEXT_CHARS)),
        ),
    ]
    for compaction_pass in passes:
        for index in compaction_pass.indices:
            if total <= max_chars:
                return result
            message = result[index]
            text = message_text(message)
            rewritten = compaction_pass.rewrite(text, total - max_chars)
            if len(rewritten) >= len(text):
                continue
            result[index] = message.model_copy(update={"content": rewritten})
            total -= len(text) - len(rewritten)
    return result
