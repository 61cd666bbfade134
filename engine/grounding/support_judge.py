"""What the verifier needs from the settings to ground a report: the judge and the documents.

The judge is the SUPPORT_MODEL at SUPPORT_BASE_URL, each falling back to the writer role's;
GROUNDING_JUDGE=off, or a writer that is the offline model, leaves it out. With `on` it
judges every report; with `auto` (the default) it judges deep reports only if it passed its
calibration (engine.grounding.calibration), run once per model, by `doctor` or by the first
report that would be judged, and remembered with the endpoint's profile. A local document's
whole text comes from the index the local search reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.config import Settings
from engine.emit import emit
from engine.events import PhaseChanged
from engine.grounding.calibration import Calibration, calibrate, calibration_pairs
from engine.grounding.judge import SupportJudge
from engine.grounding.passages import DocumentText
from engine.models.compat.profile import (
    cache_key,
    cached_judge_calibration,
    endpoint_label,
    store_judge_calibration,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


def support_judge(
    settings: Settings, model_for: Callable[[Any], BaseChatModel]
) -> SupportJudge | None:
    """The judge the settings configure, or None."""
    target = settings.support_judge_model()
    if target is None:
        return None
    writer = settings.role_model("writer")
    if (target.model, target.base_url) == (writer.model, writer.base_url):
        # The writer's own model: the engine's client for it, endpoint knowledge shared.
        model = model_for("writer")
    else:
        from engine.models.factory import make_chat_model

        judge_settings = settings.model_copy(
            update={"writer_model": target.model, "writer_base_url": target.base_url}
        )
        model = make_chat_model(judge_settings, "writer")
    return SupportJudge(model, label=support_judge_label(settings))


@dataclass(frozen=True)
class ChosenJudge:
    """The judge a report gets (None: the rules' verdicts stand), and what the audit says."""

    judge: SupportJudge | None
    label: str


async def report_judge(
    settings: Settings, model_for: Callable[[Any], BaseChatModel], *, quick: bool
) -> ChosenJudge:
    """The judge for one report, calibrating the model first where `auto` needs to know."""
    judge = support_judge(settings, model_for)
    if judge is None:
        return ChosenJudge(None, "off")
    if settings.grounding_judge == "on":
        return ChosenJudge(judge, judge.label)
    if quick:
        # One more model call would double a quick answer's time on a small local model.
        return ChosenJudge(None, "off (GROUNDING_JUDGE=auto judges deep reports only)")
    calibration = await remembered_calibration(settings, judge)
    if calibration is None:
        return ChosenJudge(None, f"off ({judge.label} could not be calibrated; rules only)")
    if not calibration.passed:
        return ChosenJudge(
            None,
            f"off ({judge.label} was {calibration.describe()} in its calibration; "
            "GROUNDING_JUDGE=on uses it anyway)",
        )
    return ChosenJudge(judge, judge.label)


async def remembered_calibration(
    settings: Settings, judge: SupportJudge, *, again: bool = False
) -> Calibration | None:
    """The judge's calibration: remembered for its endpoint, else run now and remembered
    (`again`: run now whatever was remembered). None when it could not be run."""
    target = settings.support_judge_model()
    key = cache_key(target.base_url, target.model) if target is not None else ""
    if not again:
        remembered = Calibration.from_dict(cached_judge_calibration(settings, key))
        if remembered is not None:
            return remembered
    pairs = len(calibration_pairs())
    emit(
        PhaseChanged(
            phase="verifying",
            detail=f"calibrating the support judge on {pairs} labelled sentences "
            "(once for this model)",
        )
    )
    calibration = await calibrate(judge)
    if calibration is not None and key:
        store_judge_calibration(settings, key, calibration.as_dict())
    return calibration


def support_judge_label(settings: Settings) -> str:
    """`model at endpoint` of the judge, or "off"."""
    target = settings.support_judge_model()
    if target is None:
        return "off"
    return f"{target.model} at {endpoint_label(target.base_url)}"


def document_reader(settings: Settings) -> DocumentText:
    """A local document's whole indexed text by its key (read once per key)."""
    from engine.tools.local_index import LocalIndex

    index = LocalIndex(
        settings.index_db_path,
        settings.resolved_documents_path,
        max_file_bytes=settings.index_max_file_bytes,
    )

    @lru_cache(maxsize=64)
    def read(key: str) -> str | None:
        try:
            document = index.document(key)
        except Exception:  # an index being rebuilt or unreadable: the stored passages stand
            return None
        return document.text if document is not None else None

    return read
