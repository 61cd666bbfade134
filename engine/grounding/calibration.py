"""Whether a model judges support well enough to overrule the rules: checked on labelled pairs.

A judge's verdicts replace the lexical ones, so a model that judges worse than the rules makes
the audit worse (measured: the bundled 1.5B flags true sentences as often as false ones). Before
`GROUNDING_JUDGE=auto` lets a model judge, it is asked about the pairs shipped beside this
module (`calibration_pairs.jsonl`): sentences with the passage they were checked against,
half supported in other words than the passage's, half not (a negation, another number, name or
version, a passage about something else). They were drawn from the dev half of the grounding
bench's cases (tests/fixtures/grounding/audit_cases.jsonl), by a hash of their ids, never
from the half the bench measures on, and none is settled by the verbatim fast path.

The judge passes when it is right on all but at most one pair of each kind: a supported pair
is right when the judge says "supported" with a quote it really copied, an unsupported pair
when it says "contradicted" or "not_found". A calibration whose calls failed or were not
allowed is inconclusive: nothing is decided, and nothing is remembered.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.grounding.judge import JudgeFailure, JudgeItem, JudgeOutcome, JudgeVerdict, SupportJudge
from engine.grounding.passages import Passage

PAIRS_FILE = Path(__file__).with_name("calibration_pairs.jsonl")
# Wrong answers allowed on each kind of pair (supported, unsupported).
ALLOWED_MISSES = 1


@dataclass(frozen=True)
class CalibrationPair:
    sentence: str
    source: str
    passage: str
    supported: bool


@dataclass(frozen=True)
class Calibration:
    """How a judge did on the labelled pairs, and whether that earns it the verdicts."""

    supported_right: int
    supported_pairs: int
    unsupported_right: int
    unsupported_pairs: int

    @property
    def passed(self) -> bool:
        return (
            self.supported_pairs - self.supported_right <= ALLOWED_MISSES
            and self.unsupported_pairs - self.unsupported_right <= ALLOWED_MISSES
        )

    def describe(self) -> str:
        """E.g. "right on 6 of 6 supported and 4 of 6 unsupported sentences"."""
        return (
            f"right on {self.supported_right} of {self.supported_pairs} supported and "
            f"{self.unsupported_right} of {self.unsupported_pairs} unsupported sentences"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "pairs_version": pairs_version(),
            "passed": self.passed,
            "supported_right": self.supported_right,
            "supported_pairs": self.supported_pairs,
            "unsupported_right": self.unsupported_right,
            "unsupported_pairs": self.unsupported_pairs,
        }

    @classmethod
    def from_dict(cls, raw: Any) -> Calibration | None:
        """A remembered calibration, or None when `raw` is not one, or was made on other pairs
        than the ones shipped now."""
        if not isinstance(raw, dict) or raw.get("pairs_version") != pairs_version():
            return None
        try:
            return cls(
                int(raw["supported_right"]),
                int(raw["supported_pairs"]),
                int(raw["unsupported_right"]),
                int(raw["unsupported_pairs"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


@cache
def pairs_version() -> str:
    """Which pairs a calibration was made on (a digest of the shipped file)."""
    return hashlib.sha256(PAIRS_FILE.read_bytes()).hexdigest()[:12]


@cache
def calibration_pairs() -> tuple[CalibrationPair, ...]:
    pairs = []
    for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            pairs.append(
                CalibrationPair(
                    raw["sentence"], raw["source"], raw["passage"], raw["verdict"] == "supported"
                )
            )
    return tuple(pairs)


async def calibrate(
    judge: SupportJudge,
    pairs: tuple[CalibrationPair, ...] | None = None,
    *,
    whole: bool = False,
) -> Calibration | None:
    """The judge's record on the pairs, or None when its calls could not all be made.

    The pairs are asked a batch at a time, supported and unsupported alternating, and asking
    stops once the judge has missed more than it may on either kind: the outcome is then
    settled, and on a slow local model each further batch costs the person half a minute
    (`whole`: ask every pair, for a bench that reports the full record).
    """
    pairs = _alternating(calibration_pairs() if pairs is None else pairs)
    asked: list[tuple[CalibrationPair, bool]] = []
    step = max(1, judge.batch_size)
    for start in range(0, len(pairs), step):
        chunk = pairs[start : start + step]
        items = [JudgeItem(p.sentence, (Passage(p.source, 0, p.passage),)) for p in chunk]
        # Every pair is asked about, whatever the judge's per-report limit.
        outcomes = await judge.judge(items, limit_calls=False)
        if any(isinstance(outcome, JudgeFailure) and outcome.by_call for outcome in outcomes):
            return None
        asked += [
            (pair, _right(outcome, pair.supported))
            for outcome, pair in zip(outcomes, chunk, strict=True)
        ]
        if not whole and _settled_failed(asked):
            break
    supported = [right for pair, right in asked if pair.supported]
    unsupported = [right for pair, right in asked if not pair.supported]
    return Calibration(sum(supported), len(supported), sum(unsupported), len(unsupported))


def _alternating(pairs: tuple[CalibrationPair, ...]) -> tuple[CalibrationPair, ...]:
    """Supported and unsupported pairs in turn, so that each batch tests both kinds."""
    supported = [pair for pair in pairs if pair.supported]
    unsupported = [pair for pair in pairs if not pair.supported]
    mixed: list[CalibrationPair] = []
    for index in range(max(len(supported), len(unsupported))):
        mixed += supported[index : index + 1] + unsupported[index : index + 1]
    return tuple(mixed)


def _settled_failed(asked: list[tuple[CalibrationPair, bool]]) -> bool:
    missed_supported = sum(1 for pair, right in asked if pair.supported and not right)
    missed_unsupported = sum(1 for pair, right in asked if not pair.supported and not right)
    return max(missed_supported, missed_unsupported) > ALLOWED_MISSES


def _right(outcome: JudgeOutcome, supported: bool) -> bool:
    if not isinstance(outcome, JudgeVerdict):
        return False  # no verdict, or one it may not give: the model's failure
    return (outcome.verdict == "supported") == supported
