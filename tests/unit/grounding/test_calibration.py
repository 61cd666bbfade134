"""The lexical scorer on the labelled set: what it flags as unsupported, by kind."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from engine.grounding.score import score_claim

LABELLED = Path(__file__).resolve().parents[2] / "fixtures" / "grounding" / "labelled_claims.jsonl"


def _outcomes() -> tuple[Counter[str], Counter[str]]:
    outcome: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    for line in LABELLED.read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        flagged = score_claim(pair["claim"], [pair["passage"]]).status == "unsupported"
        truly = pair["label"] == "unsupported"
        outcome[("t" if flagged == truly else "f") + ("p" if flagged else "n")] += 1
        if flagged and truly:
            caught[pair["kind"]] += 1
    return outcome, caught


def test_precision_and_recall_of_unsupported_hold_on_the_labelled_set() -> None:
    outcome, _ = _outcomes()
    precision = outcome["tp"] / (outcome["tp"] + outcome["fp"])
    recall = outcome["tp"] / (outcome["tp"] + outcome["fn"])
    # Figures of bench/grounding.py when the checks were last changed (0.940 and 0.818, after
    # negated predicates were read one per negation, names in swapped roles were caught and a
    # negated possession stopped counting as a predicate); a change that trades one away
    # shows here.
    assert precision >= 0.93
    assert recall >= 0.81


def test_the_hard_checks_catch_every_kind_of_swap_they_are_for() -> None:
    _, caught = _outcomes()
    assert caught["number_swap"] >= 38  # of 40
    assert caught["version_swap"] >= 46  # of 46
    assert caught["entity_swap"] >= 37  # of 47
    assert caught["negation"] >= 31  # of 43
    assert caught["wrong_passage"] >= 19  # of 33
