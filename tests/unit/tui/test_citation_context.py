"""The sentence shown for the citation under the cursor: its own words only, not the heading
above it nor the citation that closed the sentence before."""

from __future__ import annotations

from tui.view.citations import citation_marks

REPORT = """# How do asyncio queues and locks coordinate tasks?

## Summary
Implements a mutex lock for asyncio tasks. [1] asyncio queues are designed to be similar
to classes of the queue module. [2]

## Locks
A lock guards a shared resource [1, 3].

## Sources
[1] https://docs.python.org/3/library/asyncio-sync.html
"""


def test_a_citations_sentence_leaves_out_the_heading_and_the_previous_citation() -> None:
    contexts = [(mark.number, mark.context) for mark in citation_marks(REPORT)]
    assert contexts == [
        (1, "Implements a mutex lock for asyncio tasks. [1]"),
        (2, "asyncio queues are designed to be similar to classes of the queue module. [2]"),
        (1, "A lock guards a shared resource [1, 3]."),
        (3, "A lock guards a shared resource [1, 3]."),
    ]


def test_a_dotted_name_does_not_cut_the_cited_sentence() -> None:
    report = (
        "# Threads\n\n## Summary\n\nWith asyncio.to_thread(), we can run it in a thread\n"
        "without blocking the loop [1].\n\n## Sources\n\n[1] asyncio-task.html\n"
    )

    (mark,) = citation_marks(report)

    assert mark.context == (
        "With asyncio.to_thread(), we can run it in a thread without blocking the loop [1]."
    )
