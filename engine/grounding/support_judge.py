"""What the verifier needs from the settings to ground a report: the judge and the documents.

The judge is the SUPPORT_MODEL at SUPPORT_BASE_URL, each falling back to the writer role's;
GROUNDING_JUDGE=off, or a writer that is the offline model, leaves it out. A local
document's whole text comes from the index the local search reads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.config import Settings
from engine.grounding.judge import SupportJudge
from engine.grounding.passages import DocumentText
from engine.models.compat.profile import endpoint_label

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
