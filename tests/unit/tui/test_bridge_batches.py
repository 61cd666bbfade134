"""The bridge's batches: bounded per message, in stream order, latest unit state wins."""

from __future__ import annotations

import re
from typing import Any

from textual.message import Message

from engine.citations.evidence import EvidenceRecord
from engine.events import (
    EvidenceAdded,
    PhaseChanged,
    ReportReady,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RuntimeProgress,
    ToolCalled,
)
from tui.link.bridge import (
    MAX_ITEMS_PER_MESSAGE,
    EventBridge,
    EvidenceArrived,
    PhaseUpdated,
    UnitsUpdated,
)


class Target:
    """Stands in for the screen: keeps what was posted, in order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        return True


def record(index: int) -> EvidenceAdded:
    return EvidenceAdded(
        record=EvidenceRecord(
            id=f"e{index}", claim=f"Claim {index}.", source_urls=["https://a.example/x"]
        )
    )


def unit(unit_id: str, status: str = "running", tools: int = 0) -> ResearchUnitSummary:
    return ResearchUnitSummary(id=unit_id, topic=unit_id, status=status, tool_call_count=tools)


def bridge_with_target() -> tuple[EventBridge, Target]:
    target = Target()
    return EventBridge(target, epoch=3), target  # type: ignore[arg-type]


def test_a_burst_of_records_is_split_into_bounded_messages_in_order() -> None:
    bridge, target = bridge_with_target()
    for index in range(2 * MAX_ITEMS_PER_MESSAGE + 5):
        bridge.post(record(index))
    assert all(isinstance(message, EvidenceArrived) for message in target.messages)
    batches = [message.drain() for message in target.messages]  # type: ignore[attr-defined]
    assert [len(batch) for batch in batches] == [MAX_ITEMS_PER_MESSAGE, MAX_ITEMS_PER_MESSAGE, 5]
    ids = [item.id for batch in batches for item in batch]
    assert ids == [f"e{index}" for index in range(2 * MAX_ITEMS_PER_MESSAGE + 5)]
    assert {message.epoch for message in target.messages} == {3}  # type: ignore[attr-defined]


def test_records_after_a_drain_get_a_new_wake_up_and_one_message_takes_what_came_meanwhile() -> (
    None
):
    bridge, target = bridge_with_target()
    bridge.post(record(1))
    bridge.post(PhaseChanged(phase="researching"))
    bridge.post(record(2))  # joins the queued batch: no second wake-up
    assert [type(message) for message in target.messages] == [EvidenceArrived, PhaseUpdated]
    first = target.messages[0]
    assert isinstance(first, EvidenceArrived)
    assert [item.id for item in first.drain()] == ["e1", "e2"]
    assert first.drain() == []
    bridge.post(record(3))
    assert isinstance(target.messages[-1], EvidenceArrived)
    assert [item.id for item in target.messages[-1].drain()] == ["e3"]


def test_the_latest_state_of_a_unit_wins_within_a_batch_and_across_full_ones() -> None:
    bridge, target = bridge_with_target()
    bridge.post(ResearchUnitUpdated(unit=unit("u1", tools=1)))
    bridge.post(RuntimeProgress(research_units=[unit("u1", tools=2), unit("u2")]))
    for index in range(MAX_ITEMS_PER_MESSAGE):
        bridge.post(ResearchUnitUpdated(unit=unit(f"x{index}")))
    bridge.post(ResearchUnitUpdated(unit=unit("u1", status="completed", tools=3)))
    wake_ups = [message for message in target.messages if isinstance(message, UnitsUpdated)]
    shown: dict[str, ResearchUnitSummary] = {}
    for message in wake_ups:
        batch = message.drain()
        assert len(batch) <= MAX_ITEMS_PER_MESSAGE
        shown.update((item.id, item) for item in batch)
    assert len(wake_ups) == 2
    assert shown["u1"].status == "completed" and shown["u1"].tool_call_count == 3
    assert len(shown) == MAX_ITEMS_PER_MESSAGE + 2


# ESC sequences, 8-bit C1 sequences (CSI U+009B, OSC U+009D ended by ST U+009C), C0, bidi.
HOSTILE = "Tasks \x1b]0;title\x07are \x9b2Jcancelled\x9d0;evil\x9c by \u202ecancel()\x85\x07."
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_no_text_from_a_document_reaches_the_screen_with_its_control_sequences() -> None:
    bridge, target = bridge_with_target()
    bridge.post(
        EvidenceAdded(
            record=EvidenceRecord(
                id="e1",
                claim=HOSTILE,
                source_urls=["https://a.example/x"],
                contradiction_or_uncertainty=HOSTILE,
            )
        )
    )
    bridge.post(ToolCalled(tool="search_web", arguments=HOSTILE, result_summary=HOSTILE))
    bridge.post(ResearchUnitUpdated(unit=unit(HOSTILE)))
    bridge.post(PhaseChanged(phase="researching", detail=HOSTILE))
    bridge.post(ReportReady(report=f"# Report\n\n{HOSTILE}\n\tindented\n"))
    shown: list[Any] = []
    for message in target.messages:
        drain = getattr(message, "drain", None)
        shown += drain() if drain is not None else [message.event]  # type: ignore[attr-defined]
    texts = [text for item in shown for text in _strings(item.model_dump())]
    assert len(shown) == 5 and sum(HOSTILE[:6] in text for text in texts) >= 8
    for text in texts:
        assert not _TERMINAL_CONTROL.search(text), repr(text)
    report = next(item for item in shown if isinstance(item, ReportReady))
    assert report.report == "# Report\n\nTasks are cancelled by cancel().\n\tindented\n"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _strings(item)]
    return []
