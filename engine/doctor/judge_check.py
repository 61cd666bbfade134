"""Doctor's support-judge check: the judge's model calibrated again, its verdict remembered.

GROUNDING_JUDGE=auto lets a model judge deep reports only if it passed this calibration
(engine.grounding.calibration); doctor runs it afresh, as it probes an endpoint afresh, so a
changed model is judged on what it does now.
"""

from __future__ import annotations

import time

from engine.config import Settings
from engine.doctor.report import CapabilityCheck


async def judge_calibration(settings: Settings) -> CapabilityCheck | None:
    """The calibration's outcome as a check line, or None when no model would judge."""
    from engine.grounding.support_judge import remembered_calibration, support_judge
    from engine.models.factory import make_chat_model

    judge = support_judge(settings, lambda role: make_chat_model(settings, role))
    if judge is None:
        return None
    started = time.monotonic()
    calibration = await remembered_calibration(settings, judge, again=True)
    took = f"{time.monotonic() - started:.0f} s"
    if calibration is None:
        return CapabilityCheck(
            "support judge", False, f"its calibration calls failed ({took}); run doctor again later"
        )
    if settings.grounding_judge == "on":
        use = "GROUNDING_JUDGE=on: it judges every report"
    elif calibration.passed:
        use = "it judges deep reports"
    else:
        use = "deep reports keep the rules' verdicts (GROUNDING_JUDGE=on uses it anyway)"
    detail = f"{calibration.describe()} ({took}): {use}"
    return CapabilityCheck("support judge", calibration.passed, detail)
