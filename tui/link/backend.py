"""What the app needs from the engine, as one protocol the tests can replace.

The real implementation (`tui.link.engine_backend.EngineBackend`) imports the engine's heavy modules
only inside its methods, which the app calls from workers, so the first frame is drawn with
Textual alone.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.events import Event, ReportReady
    from engine.protocol import SessionDriver, SessionInfo


@dataclass(frozen=True)
class DoctorSummary:
    """The doctor report as text, and whether a session can run with these settings."""

    text: str
    can_run: bool


@dataclass(frozen=True)
class ModelProfileRow:
    """What one role's model can do, as detected (or set, or known): read-only."""

    role: str
    model: str
    endpoint: str
    context_window: int
    tool_calling: str  # native, prompted, or "not detected yet"
    structured_output: str  # json_schema, json_object, tool, text, or "not detected yet"
    source: str  # settings, detected, known, or "not detected yet"
    detected_at: float | None = None


@dataclass(frozen=True)
class LocalModelOffer:
    """A model server found on this machine, and the settings that would select it."""

    description: str  # where it answers and what it lists, safe to show
    model: str
    settings: dict[str, str]


class Backend(Protocol):
    """Sessions, saved reports, diagnostics and the `.env` file the setup form writes."""

    def open_session(self, session_id: str | None) -> AbstractAsyncContextManager[SessionDriver]:
        """A new session (None) or a saved one, open for as long as the context lasts."""
        ...

    async def list_sessions(self) -> list[SessionInfo]: ...

    async def session_questions(self, session_ids: list[str]) -> dict[str, list[str]]:
        """The questions each session was asked, first to last (first question, then its
        follow-ups); a session with no stored log is left out."""
        ...

    async def load_session(self, session_id: str) -> list[Event] | None:
        """A saved session's stored events in order (None when nothing is stored)."""
        ...

    async def delete_session(self, session_id: str) -> None:
        """Remove a saved session whole; raises `engine.sessions.SessionNotDeleted` (with the
        reason in words) when it may not go, such as while it runs."""
        ...

    def export_dir(self) -> Path:
        """Where exports go by default: EXPORT_DIR, else `exports` in the data directory."""
        ...

    async def export_report(
        self, report: ReportReady, *, question: str, session_id: str, fmt: str, path: Path
    ) -> Path:
        """Write the report as `fmt` (md, html, pdf, docx) with its sources and audit; the
        absolute path written. Raises OSError when it cannot be written."""
        ...

    async def doctor(self, *, probe: bool = False) -> DoctorSummary: ...

    def model_profiles(self) -> list[ModelProfileRow]:
        """Each role's model profile from the settings and the detected-profile cache in the
        data directory (empty for the built-in offline model, which has no server)."""
        ...

    def offline_model(self) -> bool:
        """Whether the settings select the built-in offline model (raises on bad settings)."""
        ...

    def prepare_documents(self, progress: Callable[[int, int], None]) -> str | None:
        """Bring the local documents index up to date (blocking; runs in a thread).

        `progress(done, total)` is called per file indexed and may raise to stop early; an
        index stopped early is left as it was. Does nothing when search is not local.
        Returns a warning to keep on screen (a folder with nothing to search), else None.
        """
        ...

    async def local_model_offers(self) -> list[LocalModelOffer]:
        """With no model endpoint configured, the OpenAI-compatible servers that answer on
        this machine's usual ports (GET /v1/models on 127.0.0.1 only; nothing else is sent).
        Empty when an endpoint is configured or none answers."""
        ...

    def env_file(self) -> Path:
        """Where first-run setup writes its settings."""
        ...

    def reload_settings(self) -> None:
        """Re-read settings after the setup form wrote `.env`."""
        ...
