"""A researcher reply that begins copying its passages back is stopped there and cut: the
findings it did not write are quoted from its passages, at no generation cost."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from engine.citations.registry import SourceRegistry
from engine.nodes.extraction import findings_from_messages
from engine.nodes.researcher_passages import (
    Passage,
    copying_passages,
    passages_block,
    seed_catalog,
    with_copy_finished,
)

PASSAGES = [
    Passage(
        1,
        "Routine Vacuuming",
        "routine-vacuuming.html",
        "Autovacuum vacuums a table when its dead tuples exceed the vacuum threshold.",
    ),
    Passage(
        2,
        "Automatic Vacuuming",
        "runtime-config-autovacuum.html",
        "autovacuum_vacuum_scale_factor specifies a fraction of the table size to add.",
    ),
]
OWN = "The threshold grows with the table [2]."
# What the 1.5B model writes instead of findings: the passages again, header line first.
COPY = (
    f"{OWN}\n\n[1] Routine Vacuuming\nDocument: routine-vacuuming.html\n"
    "Autovacuum vacuums a table when its dead tuples exceed the vacuum thr"
)


def _findings(messages: list) -> list[str]:
    registry = SourceRegistry()
    for passage in PASSAGES:
        registry.add_document(passage.locator, passage.title, passage.text)
    found = findings_from_messages(
        messages,
        registry,
        unit_id="unit-1",
        max_claims=10,
        max_sources_per_claim=3,
        max_bullets=10,
        word_budget=300,
        seed=seed_catalog(PASSAGES),
    )
    return [record.claim for record in found.records]


def test_a_copy_is_seen_once_a_header_line_goes_on_to_repeat_its_passage() -> None:
    copying = copying_passages(PASSAGES)
    assert copying(COPY)
    header_only = f"{OWN}\n\n[1] Routine Vacuuming\nDocument: routine-vacuuming.html\n"
    assert not copying(header_only)  # it may yet be a sources list
    assert not copying(f"{OWN}\n\n[1] Routine Vac")  # the header line is unfinished
    listed = f"{OWN}\n\n[1] Routine Vacuuming\n[2] Automatic Vacuuming\n\nMore [1].\n"
    assert not copying(listed)  # a sources list without its heading names, copies nothing
    other = f"{OWN}\n\n[1] Routine Vacuuming\nSomething no passage says at all, at some length.\n"
    assert not copying(other)
    assert not copying(f"<think>\n{COPY}")  # reasoning is not the reply


def test_a_stopped_copy_is_cut_and_the_findings_it_did_not_write_are_quoted() -> None:
    opening = HumanMessage(content=f"autovacuum threshold\n\n{passages_block(PASSAGES)}")
    stopped = [opening, AIMessage(content=COPY)]
    finished = with_copy_finished(stopped, PASSAGES)
    assert finished[-1].content == OWN
    claims = _findings(finished)
    # The model's own finding first, then the passage sentence that matches its topic.
    assert claims[0].startswith("The threshold grows with the table")
    assert PASSAGES[0].text in claims
    # A passage's header line is no part of any finding, nor is the half-copied passage.
    assert not any("Document:" in claim or "Routine Vacuuming" in claim for claim in claims)
    assert not any(claim.endswith("vacuum thr") for claim in claims)


def test_findings_that_copy_nothing_are_left_as_written() -> None:
    written = [HumanMessage(content="autovacuum"), AIMessage(content=OWN)]
    assert with_copy_finished(written, PASSAGES) == written
    calling = AIMessage(content=COPY, tool_calls=[{"name": "search_web", "args": {}, "id": "c1"}])
    assert with_copy_finished([calling], PASSAGES) == [calling]
    assert with_copy_finished(written, []) == written


def test_a_passage_copied_back_in_a_shape_of_its_own_is_stopped_and_cut() -> None:
    # No header line gives this copy away: the 1.5B's "- [1] [Title]. passage…" list items.
    long = Passage(
        3,
        "25.1. Routine Vacuuming",
        "routine-vacuuming.html",
        " ".join(
            f"Sentence {n} of the routine vacuuming page says what the daemon does with "
            f"table number {n} once its dead tuples pass the threshold."
            for n in range(1, 7)
        ),
    )
    passages = [*PASSAGES, long]
    copy = f"{OWN}\n- [3] [25.1. Routine Vacuuming]. {long.text.lower()}"
    copying = copying_passages(passages)
    assert copying(copy)
    assert not copying(f"{OWN}\n- [3] [25.1. Routine Vacuuming]. {long.text[:200]}")
    stopped = [HumanMessage(content="vacuum"), AIMessage(content=copy)]
    finished = with_copy_finished(stopped, passages)
    assert finished[-1].content == OWN
