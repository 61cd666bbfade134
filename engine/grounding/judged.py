"""A judge's outcome turned into a claim's verdict.

supported (with its quote found in a passage) keeps the sentence; contradicted may remove it;
not_found marks it, and removes it only where no retrieved text shares its content, as the
rules would. A sentence the judge reads as not answering a quick answer's question is marked.
A judge that gave no verdict leaves the lexical one, saying why.
"""

from __future__ import annotations

from engine.events import ClaimSupport
from engine.grounding.assess import Assessed
from engine.grounding.judge import JudgeFailure, JudgeOutcome
from engine.terminal_text import terminal_safe

JUDGE_SUPPORTED = "the judge found it in its source"
JUDGE_CONTRADICTED = "the judge found that its source says otherwise"
JUDGE_NOT_FOUND = "the judge did not find it in the passages of its sources"
OFF_QUESTION = "it does not answer the question asked (the judge)"


def with_outcome(assessed: Assessed, outcome: JudgeOutcome) -> Assessed:
    claim = assessed.claim
    if isinstance(outcome, JudgeFailure):
        return Assessed(
            claim.model_copy(update={"judge_error": outcome.reason}), assessed.removable
        )
    answers = outcome.answers_question
    if claim.decided_by == "quote":
        # Its words are its source's: only whether it answers the question is the judge's.
        updated = claim.model_copy(update={"answers_question": answers})
        return Assessed(_off_question(updated), removable=False)
    update: dict[str, object] = {"decided_by": "judge", "answers_question": answers}
    if outcome.passage is not None:
        update |= {
            "excerpt": terminal_safe(outcome.quote),
            "passage_source": outcome.passage.source,
            "passage_number": outcome.passage.number + 1,
            "passage_offset": outcome.offset,
        }
    if outcome.verdict == "supported":
        update |= {"status": "supported", "score": 1.0, "reason": JUDGE_SUPPORTED}
        return Assessed(_off_question(claim.model_copy(update=update)), removable=False)
    if outcome.verdict == "contradicted":
        update |= {"status": "unsupported", "score": 0.0, "reason": JUDGE_CONTRADICTED}
        return Assessed(claim.model_copy(update=update), removable=True)
    update |= {"status": "unsupported", "reason": JUDGE_NOT_FOUND}
    return Assessed(claim.model_copy(update=update), assessed.removable)


def _off_question(claim: ClaimSupport) -> ClaimSupport:
    if claim.answers_question is False:
        return claim.model_copy(update={"status": "weak", "reason": OFF_QUESTION})
    return claim
