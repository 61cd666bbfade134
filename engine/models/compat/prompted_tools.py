"""Tool calling for servers that do not do it natively: tools in the prompt, calls as text.

The format is the Hermes/Qwen one (`<tools>` in the system prompt, `<tool_call>` in replies,
`<tool_response>` for results), which most open instruct models were trained on. Tool results
go back as user turns because several chat templates drop the `tool` role entirely.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from engine.messages import message_text

_TOOLS_PREAMBLE = (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
_TOOLS_HOW = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
)
_REQUIRED = "\n\nYou must call one of these functions in your next reply."


def _compact_tool(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool.get("function", tool)
    return {
        "name": function.get("name", ""),
        "description": " ".join(str(function.get("description", "")).split())[:400],
        "parameters": function.get("parameters", {}),
    }


def tools_block(tools: Sequence[dict[str, Any]], *, required: bool = False) -> str:
    """The system-prompt section that describes `tools` (OpenAI tool dicts)."""
    lines = [json.dumps(_compact_tool(tool), ensure_ascii=False) for tool in tools]
    return _TOOLS_PREAMBLE + "\n".join(lines) + _TOOLS_HOW + (_REQUIRED if required else "")


def _call_text(call: dict[str, Any]) -> str:
    body = json.dumps({"name": call["name"], "arguments": call.get("args", {})}, ensure_ascii=False)
    return f"<tool_call>\n{body}\n</tool_call>"


def render_conversation(
    messages: Sequence[BaseMessage], tools: Sequence[dict[str, Any]], *, required: bool = False
) -> list[BaseMessage]:
    """The conversation in plain system/user/assistant turns, tools described in the system.

    Assistant tool calls become `<tool_call>` text; each run of tool results becomes one user
    turn of `<tool_response>` blocks, in call order.
    """
    block = tools_block(tools, required=required) if tools else ""
    rendered: list[BaseMessage] = []
    pending_results: list[str] = []

    def flush() -> None:
        if pending_results:
            rendered.append(HumanMessage(content="\n".join(pending_results)))
            pending_results.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            pending_results.append(f"<tool_response>\n{message_text(message)}\n</tool_response>")
            continue
        flush()
        if isinstance(message, SystemMessage):
            text = message_text(message)
            rendered.append(SystemMessage(content=f"{text}\n\n{block}" if block else text))
            block = ""
        elif isinstance(message, AIMessage):
            parts = [message_text(message)] if message_text(message).strip() else []
            parts += [_call_text(dict(call)) for call in message.tool_calls]
            rendered.append(AIMessage(content="\n".join(parts)))
        else:
            rendered.append(message)
    flush()
    if block:
        rendered.insert(0, SystemMessage(content=block))
    return rendered
