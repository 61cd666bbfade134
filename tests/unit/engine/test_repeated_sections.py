"""A report section that repeats an earlier one word for word leaves with its heading.

The bundled local model, writing a report over undici's pages, wrote its "Client" section
again bullet for bullet under "Pool" and under "Agent".
"""

from __future__ import annotations

from engine.nodes.repeated_sections import without_repeated_sections

SECTION = (
    "### Key features\n"
    "- **Dispatchers**: Requests are not guaranteed to be dispatched in order [2].\n\n"
    "### Behavior\n"
    "- **Garbage collection**: Undici includes methods for garbage collection [1].\n"
)
REPORT = (
    "# Undici\n\n## Summary\nRequests are not guaranteed to be dispatched in order [2].\n\n"
    "## Client\n" + SECTION + "\n## Pool\n" + SECTION.replace("[2]", "[3]") + "\n"
    "## Agent\n" + SECTION + "\n## Conclusion\nAn agent holds one pool per origin [4].\n\n"
    "## Sources\n[1] README.md\n[2] Pool.md\n[3] Client.md\n[4] Agent.md\n"
)


def test_a_section_repeated_under_later_headings_is_kept_once() -> None:
    report = without_repeated_sections(REPORT)
    assert "## Pool" not in report and "## Agent" not in report
    assert report.count("### Key features") == 1
    assert report.count("garbage collection [1]") == 1
    assert "## Client\n### Key features" in report
    assert "An agent holds one pool per origin [4]." in report
    assert report.rstrip().endswith("[4] Agent.md")
    assert "\n\n\n" not in report


def test_a_summary_that_restates_one_sentence_of_a_section_stays() -> None:
    report = without_repeated_sections(REPORT)
    assert "## Summary\nRequests are not guaranteed to be dispatched in order [2]." in report


def test_short_or_different_sections_are_left_alone() -> None:
    text = (
        "## A\nSee below.\n\n## B\nSee below.\n\n"
        "## C\nSomething else entirely is said here, at length.\n"
    )
    assert without_repeated_sections(text) == text
    line = "the same words repeated in a code block here"
    fenced = f"```\n## A\n{line}\n## B\n{line}\n```\n"
    assert without_repeated_sections(fenced) == fenced
