"""The bridge's batches: bounded per message, in stream order, latest unit state wins."""

from __future__ import annotations

from textual.message import Message

from engine.citations.evidence import EvidenceRecord
from engine.events import (
    EvidenceAdded,
    PhaseChanged,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RuntimeProgress,
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
