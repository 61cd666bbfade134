"""The throttle that keeps a flood of events from re-running an expensive refresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.view.throttle import Throttle


class FakeTimer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay, self.callback, self.stopped = delay, callback, False

    def stop(self) -> None:
        self.stopped = True


class FakeOwner:
    def __init__(self) -> None:
        self.timers: list[FakeTimer] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        self.timers.append(FakeTimer(delay, callback))
        return self.timers[-1]


def make(now: list[float]) -> tuple[Throttle, FakeOwner, list[float]]:
    owner, runs = FakeOwner(), []
    throttle = Throttle(
        owner,  # type: ignore[arg-type]
        0.5,
        lambda: runs.append(now[0]),
        clock=lambda: now[0],
    )
    return throttle, owner, runs


def test_first_request_runs_at_once_and_a_burst_runs_once_more_later() -> None:
    now = [10.0]
    throttle, owner, runs = make(now)
    throttle.request()
    assert runs == [10.0] and not owner.timers
    for step in range(100):
        now[0] = 10.0 + step * 0.001
        throttle.request()
    assert runs == [10.0], "a burst inside the interval does not run again at once"
    (timer,) = owner.timers
    assert timer.delay == 0.5  # scheduled by the first request of the burst
    now[0] = 10.5
    timer.callback()
    assert runs == [10.0, 10.5]
    assert not throttle.pending


def test_request_after_the_interval_runs_immediately() -> None:
    now = [0.0]
    throttle, owner, runs = make(now)
    throttle.request()
    now[0] = 2.0
    throttle.request()
    assert runs == [0.0, 2.0] and not owner.timers


def test_flush_runs_a_pending_request_and_cancel_drops_it() -> None:
    now = [0.0]
    throttle, owner, runs = make(now)
    throttle.request()
    throttle.request()
    throttle.flush()
    assert runs == [0.0, 0.0] and owner.timers[0].stopped
    throttle.request()
    throttle.cancel()
    assert owner.timers[-1].stopped and not throttle.pending
    assert len(runs) == 2


def test_flush_without_a_pending_request_does_nothing() -> None:
    now: list[Any] = [0.0]
    throttle, _, runs = make(now)
    throttle.flush()
    assert runs == []
