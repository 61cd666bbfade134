"""Reading LangChain messages the same way everywhere."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, BaseMessage


def message_text(message: BaseMessage) -> str:
    """The plain text of a message, whatever shape its content has.

    Unlike `BaseMessage.text`, text blocks without a `type` (as some OpenAI-compatible
    servers send them) still count.
    """
    content = message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(parts)


def message_chars(message: BaseMessage) -> int:
    """How many characters a message adds to a request (text plus tool-call arguments)."""
    size = len(message_text(message))
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            size += len(call["name"]) + len(json.dumps(call["args"], ensure_ascii=False))
    return size
