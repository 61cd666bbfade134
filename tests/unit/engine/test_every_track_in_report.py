"""Every approved track keeps its section in a deep report, emptied by grounding or not."""

from __future__ import annotations

from engine.nodes.track_sections import TAKEN_OUT_LINE, with_every_track

SECTIONS = ["Thresholds", "Settings", "Locks"]
SOURCES = "## Sources\n[1] Autovacuum: runtime-config-autovacuum.html\n"


def report(*sections: str) -> str:
    body = "".join(
        f"## {heading}\n\nAutovacuum runs when a threshold is met [1].\n\n" for heading in sections
    )
    return f"# How does autovacuum work?\n\n## Summary\n\nIt runs often [1].\n\n{body}{SOURCES}"


def test_a_track_whose_section_grounding_emptied_is_said_in_plan_order() -> None:
    restored = with_every_track(report("Thresholds", "Locks"), SECTIONS)

    headings = [line for line in restored.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## Thresholds", "## Settings", "## Locks", "## Sources"]
    settings = restored.split("## Settings\n", 1)[1].split("## Locks", 1)[0]
    assert settings.strip() == TAKEN_OUT_LINE
    assert restored.endswith(SOURCES)
    assert "\n\n\n" not in restored


def test_the_last_track_goes_before_the_sources() -> None:
    restored = with_every_track(report("Thresholds", "Settings"), SECTIONS)

    assert restored.index("## Locks") < restored.index("## Sources")
    assert restored.split("## Locks\n", 1)[1].split("## Sources", 1)[0].strip() == TAKEN_OUT_LINE


def test_a_report_with_every_track_is_left_as_it_is() -> None:
    whole = report(*SECTIONS)
    assert with_every_track(whole, SECTIONS) == whole
