"""Evidence confidence from the evidence: support by the sources' text, agreement, hedging."""

from __future__ import annotations

from engine.citations.registry import SourceRegistry
from engine.grounding.confidence import NEUTRAL, evidence_confidence
from engine.nodes.extraction import evidence_from_text

QUEUE = (
    "If maxsize is less than or equal to zero, the queue size is infinite. Queue.join() "
    "blocks until all items in the queue have been received and processed."
)


def registry() -> SourceRegistry:
    found = SourceRegistry()
    found.add_document("queue.html", "Queues", QUEUE)
    found.add_document("queue-copy.html", "Queues again", QUEUE)
    found.add_document("empty.html", "Nothing kept")
    return found


def test_support_agreement_and_hedging_order_the_confidence() -> None:
    kept = registry()
    claim = "Queue.join() blocks until all items have been received and processed."
    one = evidence_confidence(claim, ["queue.html"], kept)
    two = evidence_confidence(claim, ["queue.html", "queue-copy.html"], kept)
    hedged = evidence_confidence(claim, ["queue.html"], kept, hedged=True)
    weak = evidence_confidence(
        "Queue.join() blocks forever on a closed loop.", ["queue.html"], kept
    )
    wrong = evidence_confidence("The queue size is capped at 4096 items.", ["queue.html"], kept)
    assert two > one > hedged and one > weak > wrong
    assert 0.05 <= wrong <= 0.2 and 0.8 <= two <= 0.95


def test_a_source_with_no_kept_text_leaves_the_neutral_value() -> None:
    assert evidence_confidence("Anything at all.", ["empty.html"], registry()) == NEUTRAL


def test_extracted_evidence_carries_its_confidence() -> None:
    text = (
        "Queue.join() blocks until all items have been received and processed [1]. "
        "The queue size is capped at 4096 items [1].\n\nSources:\n[1] Queues: queue.html"
    )
    records = evidence_from_text(
        text, registry(), unit_id="u1", max_claims=5, max_sources_per_claim=2
    )
    assert [r.confidence > 0.7 for r in records] == [True, False]
