"""Turn what real models write into canonical replies: tool calls, no reasoning, plain text.

Servers differ in what they parse. Ollama and `llama-server --jinja` turn Qwen's
`<tool_call>` tags into OpenAI `tool_calls`; others hand the tags back as text, and small
models sometimes write a call in another family's style. Every style seen in the wild is
parsed here, once, so a tool call never becomes an answer and reasoning never reaches a
report.
"""

from __future__ import annotations

import html
import json
import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from engine.models.compat.json_text import json_candidates, parse_json_object

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)

_TAGGED_CALL = re.compile(
    r"<(?:tool_call|\|tool_call\|)>\s*(.*?)\s*(?:</(?:tool_call|\|tool_call\|)>|<\|im_end\|>|$)",
    re.DOTALL,
)
_FUNCTION_TAG = re.compile(r"<function=([\w.\-]+)>\s*(.*?)\s*</function>", re.DOTALL)
# llama-cpp-python's chatml-function-calling format: `functions.NAME:` then the JSON arguments.
_DOTTED_CALL = re.compile(r"(?:^|\n)\s*functions\.([\w\-]+)\s*:\s*", re.MULTILINE)
_PYTHON_TAG = "<|python_tag|>"
_MISTRAL_TAG = "[TOOL_CALLS]"
_RESIDUE = re.compile(
    r"<\|?tool_call\|?>|</?tool_call>|(?:^|\n)\s*functions\.[\w\-]+\s*:|\[TOOL_CALLS\]"
    r"|<\|python_tag\|>|<function=",
)
_FENCED_JSON = re.compile(r"```(?:json|JSON)?\s*\n?.*?```", re.DOTALL)
_NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
_ARG_KEYS = ("arguments", "args", "parameters", "tool_input", "input", "action_input")


@dataclass
class ParsedReply:
    """A reply's visible text and the tool calls found in it."""

    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def strip_reasoning(text: str) -> str:
    """`text` without `<think>` blocks; an unclosed block hides everything after it."""
    if not (_THINK_OPEN.search(text) or _THINK_CLOSE.search(text)):
        return text
    cleaned = _THINK_BLOCK.sub("", text)
    close = _THINK_CLOSE.search(cleaned)
    if close is not None:
        # Templates that open the block themselves leave only the closing tag in the reply.
        cleaned = cleaned[close.end() :]
    opened = _THINK_OPEN.search(cleaned)
    if opened is not None:
        cleaned = cleaned[: opened.start()]
    return cleaned.strip()


_ENTITY = re.compile(r"&(?:lt|gt|quot|amp|#\d{2,4}|#x[0-9a-fA-F]{2,4});")


def unescape_entities(text: str) -> str:
    """Text as the model meant it when its chat template HTML-escaped the conversation.

    Some servers render prompts with an autoescaping template (llama-cpp-python's function-
    calling one does); the model then writes `&lt;tool_call&gt;` and `&#34;` back.
    """
    return html.unescape(text) if _ENTITY.search(text) else text


def unescape_values(value: Any) -> Any:
    """Every string inside parsed JSON, unescaped (the JSON itself is parsed first)."""
    if isinstance(value, str):
        return unescape_entities(value)
    if isinstance(value, list):
        return [unescape_values(item) for item in value]
    if isinstance(value, dict):
        return {key: unescape_values(item) for key, item in value.items()}
    return value


_SCHEMA_KEYS = frozenset({"properties", "required", "type", "title", "description"})


def unwrap_schema_shape(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments a model wrapped in the shape of the tool's JSON schema, unwrapped.

    Small models copy the schema they were shown around their values:
    `{"properties": {"research_topic": "…"}, "required": ["research_topic"]}` means
    `{"research_topic": "…"}`. Left as it is, every call fails the same way and the model
    repeats it.
    """
    properties = args.get("properties")
    if isinstance(properties, dict) and set(args) <= _SCHEMA_KEYS:
        return properties
    return args


def new_call_id() -> str:
    return f"call_{secrets.token_hex(6)}"


def _call_from_mapping(value: dict[str, Any]) -> dict[str, Any] | None:
    """A tool call from `{"name": …, "arguments": {…}}` and its common spellings."""
    if "function" in value and isinstance(value["function"], dict):
        return _call_from_mapping(value["function"])
    name = next((value[key] for key in _NAME_KEYS if isinstance(value.get(key), str)), None)
    if not name:
        return None
    args: Any = next((value[key] for key in _ARG_KEYS if key in value), {})
    if isinstance(args, str):
        try:
            args = parse_json_object(args)
        except ValueError:
            args = {"input": args}
    if not isinstance(args, dict):
        return None
    return {"name": name.strip(), "args": args, "id": new_call_id(), "type": "tool_call"}


def _calls_from_json_text(text: str) -> list[dict[str, Any]]:
    for candidate in json_candidates(text):
        try:
            value: Any = json.loads(candidate)
        except ValueError:
            try:
                value = parse_json_object(candidate)
            except ValueError:
                continue
        items = value if isinstance(value, list) else [value]
        calls = [_call_from_mapping(item) for item in items if isinstance(item, dict)]
        found = [call for call in calls if call is not None]
        if found:
            return found
    return []


def _dotted_calls(text: str) -> tuple[list[dict[str, Any]], str]:
    matches = list(_DOTTED_CALL.finditer(text))
    if not matches:
        return [], text
    calls = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end].strip()
        try:
            args = parse_json_object(body) if body else {}
        except ValueError:
            args = {}
        calls.append(
            {"name": match.group(1), "args": args, "id": new_call_id(), "type": "tool_call"}
        )
    return calls, text[: matches[0].start()].strip()


def parse_text_tool_calls(text: str, tool_names: Collection[str]) -> ParsedReply:
    """Tool calls written as text, in any of the styles models use; the rest is the text.

    A bare JSON object counts as a call only when its name is one of `tool_names`, so an
    answer that happens to be JSON is never mistaken for a call.
    """
    tagged = _TAGGED_CALL.findall(text)
    if tagged:
        calls = [call for body in tagged for call in _calls_from_json_text(body)]
        rest = _TAGGED_CALL.sub("", text).strip()
        return ParsedReply(rest, calls)
    functions = _FUNCTION_TAG.findall(text)
    if functions:
        calls = []
        for name, body in functions:
            try:
                args = parse_json_object(body) if body.strip() else {}
            except ValueError:
                args = {}
            calls.append({"name": name, "args": args, "id": new_call_id(), "type": "tool_call"})
        return ParsedReply(_FUNCTION_TAG.sub("", text).strip(), calls)
    for marker in (_PYTHON_TAG, _MISTRAL_TAG):
        if marker in text:
            head, _, body = text.partition(marker)
            return ParsedReply(head.strip(), _calls_from_json_text(body))
    calls, head = _dotted_calls(text)
    if calls:
        return ParsedReply(head, calls)
    # JSON anywhere (fenced, after a sentence): a call only when it names a bound tool.
    found = [call for call in _calls_from_json_text(text) if call["name"] in tool_names]
    if found:
        rest = _FENCED_JSON.sub("", text).strip()
        return ParsedReply("" if rest.startswith(("{", "[")) else rest, found)
    return ParsedReply(text, [])


def looks_like_tool_call(text: str) -> bool:
    """Whether text still carries tool-call syntax (a call no parser could read)."""
    return bool(_RESIDUE.search(text))
