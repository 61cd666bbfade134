"""The saved report file reads as the report in any Markdown viewer."""

from __future__ import annotations

from markdown_it import MarkdownIt

from engine.markdown_file import markdown_file_text

REPORT = """# Threads

## Summary
First sentence [1].
Second sentence [2].

## Sources
[1] Coroutines and Tasks: asyncio-task.html
[2] Developing with asyncio: asyncio-dev.html
"""


def paragraphs(markdown: str) -> list[str]:
    tokens = MarkdownIt().parse(markdown)
    return [t.content for t in tokens if t.type == "inline" and t.content]


def test_each_sentence_and_each_source_is_a_paragraph_of_its_own() -> None:
    shown = paragraphs(markdown_file_text(REPORT))

    assert "First sentence [1]." in shown and "Second sentence [2]." in shown
    assert "[1] Coroutines and Tasks: asyncio-task.html" in shown
    assert "[2] Developing with asyncio: asyncio-dev.html" in shown


def test_lists_code_and_quotes_keep_their_lines() -> None:
    text = "- one\n- two\n\n```\na = 1\nb = 2\n```\n> a\n> b\n"
    assert markdown_file_text(text) == "- one\n- two\n\n```\na = 1\nb = 2\n```\n\n> a\n> b\n"
