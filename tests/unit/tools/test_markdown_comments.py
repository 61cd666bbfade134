"""Markdown comments (build metadata in documentation) never become passages."""

from __future__ import annotations

from pathlib import Path

from engine.tools.document_stream import stream_chunks
from engine.tools.documents import parse_file, without_comments

DOC = """# Events

## `events.defaultMaxListeners`

<!-- YAML
added: v0.11.2
-->

By default, a maximum of `10` listeners can be registered for any single
event. <!-- inline note --> This limit can be changed.

```js
// <!-- inside code stays -->
```
"""


def test_comments_leave_small_and_streamed_markdown_alike(tmp_path: Path) -> None:
    path = tmp_path / "events.md"
    path.write_text(DOC, encoding="utf-8")
    small = " ".join(chunk.text for chunk in parse_file(path, "events.md").chunks)
    streamed = " ".join(
        chunk.text for chunk in stream_chunks(path, "events.md", "Events", markdown=True)
    )
    for text in (small, streamed):
        assert "YAML" not in text and "added: v0.11.2" not in text and "inline note" not in text
        assert "a maximum of 10 listeners" in text and "This limit can be changed." in text
        assert "inside code stays" in text


def test_a_comment_spanning_lines_is_tracked_line_by_line() -> None:
    assert without_comments("a <!-- b", False) == ("a ", True)
    assert without_comments("still inside", True) == ("", True)
    assert without_comments("end --> c <!-- d --> e", True) == (" c  e", False)


def test_a_comment_opener_inside_inline_code_is_text() -> None:
    line = "Comments start with `<!--` and end with `-->`."
    assert without_comments(line, False) == (line, False)
