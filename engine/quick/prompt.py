"""The quick path's system prompt: tools, the current date, documents and query rewriting."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from langchain_core.tools import BaseTool

from engine.middleware.first_search import SEARCH_TOOL as WEB_SEARCH_TOOL

# First line of the prompt; a deterministic model can recognise the quick path by it.
QUICK_PROMPT_MARKER = "You are the quick-answer researcher."

_MAX_TOOL_DESCRIPTION = 300
_MAX_DOCUMENTS_LISTED = 50


def tools_info_from(tools: Sequence[BaseTool]) -> list[dict[str, str]]:
    """Name and a one-paragraph description of each tool, as the prompt lists them."""
    info = []
    for tool in tools:
        description = " ".join((tool.description or "").split())
        if len(description) > _MAX_TOOL_DESCRIPTION:
            description = description[: _MAX_TOOL_DESCRIPTION - 1].rstrip() + "…"
        info.append({"name": tool.name, "description": description})
    return info


def _tools_section(tools_info: Sequence[Mapping[str, str]]) -> list[str]:
    if not tools_info:
        return ["## Tools", "No tools are available: answer from the conversation alone."]
    lines = ["## Tools"]
    lines += [f"- {tool['name']}: {tool.get('description', '')}".rstrip() for tool in tools_info]
    return lines


def _query_rewriting_section(year: int) -> list[str]:
    return [
        "## Query rewriting",
        f"Before every {WEB_SEARCH_TOOL} call, rewrite the question into a search-friendly "
        "query that states the context the person assumed but did not say:",
        f"- Time: for questions about something upcoming, next, latest, newest or current, "
        f"add the current year ({year}) to the query.",
        "- Topic: expand vague shorthand with the obvious topic or scope (an acronym with its "
        'field, "the release" with the product it refers to).',
        "Keep each query under 12 words. Independent searches go in one turn, in parallel.",
    ]


def _documents_section(
    available_documents: Sequence[str], collection_name: str | None
) -> list[str]:
    if not available_documents and not collection_name:
        return []
    lines = ["## Available documents"]
    if collection_name:
        lines.append(f"Knowledge collection: {collection_name}")
    shown = list(available_documents)[:_MAX_DOCUMENTS_LISTED]
    lines += [f"- {document}" for document in shown]
    hidden = len(available_documents) - len(shown)
    if hidden > 0:
        lines.append(f"- … and {hidden} more")
    return lines


def _user_section(user_info: Mapping[str, Any] | None) -> list[str]:
    if not user_info:
        return []
    lines = ["## About the person asking"]
    lines += [f"- {key}: {value}" for key, value in user_info.items() if value not in (None, "")]
    return lines if len(lines) > 1 else []


_RETRIEVE = "Answer the person's question quickly and accurately from sources you retrieve."
_FROM_PASSAGES = (
    "- The question has already been searched: answer from the numbered passages you are given."
)
_SEARCH_ONLY_IF_NEEDED = " Call a tool only when they do not answer the question."
_ANSWER_RULES = [
    "## How to answer",
    "- Start with the direct answer in one or two sentences; add supporting detail after it "
    "only if it helps.",
    "- Cite every fact with the number of the passage it came from, in square brackets right "
    'after it, e.g. "Task.cancel() requests cancellation [2]." Never invent a source.',
    "- Example of the form (the facts and numbers here are made up):\n"
    "  Widgets are cached for ten minutes [2]. A stale widget is rebuilt on its next use [5].",
    "- If the passages do not answer the question, say so plainly instead of guessing.",
]


def render_quick_prompt(
    *,
    tools_info: Sequence[Mapping[str, str]],
    now: datetime,
    available_documents: Sequence[str] = (),
    collection_name: str | None = None,
    user_info: Mapping[str, Any] | None = None,
    passages_given: bool = False,
    rules_in_turn: bool = False,
) -> str:
    """The system prompt for one quick-path model call.

    Once the model has been given the question's passages, the prompt is what answering from
    them needs: the tools are described by their bound schemas alone, searching again gets one
    line, and the list of available documents is left out (the passages name their documents).
    Every line here is prompt a small model reads before it writes a word: when the passages
    turn states how to answer (`rules_in_turn`), the rules are not said twice.
    """
    # The passages turn says what to do with them: the line on retrieving would be read twice.
    intro = [] if rules_in_turn else [_RETRIEVE]
    sections: list[list[str]] = [
        [QUICK_PROMPT_MARKER, *intro, f"Current date: {now.strftime('%A, %B %d, %Y')}"],
    ]
    searches = any(tool.get("name") == WEB_SEARCH_TOOL for tool in tools_info)
    if not passages_given:
        sections.append(_tools_section(tools_info))
        if searches:
            sections.append(_query_rewriting_section(now.year))
    elif searches:
        sections.append(
            [
                f"To search for more, call {WEB_SEARCH_TOOL} with a query under 12 words that "
                f"states what the question assumed (add the year, {now.year}, for the latest "
                "or upcoming)."
            ]
        )
    listed = () if passages_given else available_documents
    sections.append(_documents_section(listed, collection_name))
    sections.append(_user_section(user_info))
    if not rules_in_turn:
        first_rule = _FROM_PASSAGES + (_SEARCH_ONLY_IF_NEEDED if searches else "")
        sections.append([_ANSWER_RULES[0], first_rule, *_ANSWER_RULES[1:]])
    return "\n\n".join("\n".join(section) for section in sections if section)
