"""The app's link to the real engine: every heavy import happens inside a method.

The app constructs this before its first frame, so the module imports nothing from the
engine: settings load after the first frame, and LangChain, LangGraph and the HTTP stack load
when a worker first opens a session.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tui.link.backend import DoctorSummary, LocalModelOffer, ModelProfileRow

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.events import Event, ReportReady
    from engine.protocol import SessionDriver, SessionInfo


class EngineBackend:
    """Sessions and diagnostics from the engine, with settings read once and on demand."""

    def __init__(self, settings: Settings | None = None, cwd: Path | None = None) -> None:
        self._settings = settings
        self._cwd = cwd or Path.cwd()

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from engine.config import load_settings

            self._settings = load_settings(cwd=self._cwd)
        return self._settings

    def offline_model(self) -> bool:
        return self.settings.offline

    def prepare_documents(self, progress: Callable[[int, int], None]) -> str | None:
        settings = self.settings
        if settings.resolved_search_provider != "local":
            return None
        from engine.preflight import documents_warning
        from engine.tools.local_index import LocalIndex

        warning = documents_warning(settings)
        if warning is not None:
            return warning
        index = LocalIndex(
            settings.index_db_path,
            settings.resolved_documents_path,
            max_file_bytes=settings.index_max_file_bytes,
        )
        index.ensure_fresh(progress=lambda done, total, _name: progress(done, total))
        return None

    def reload_settings(self) -> None:
        self._settings = None

    async def local_model_offers(self) -> list[LocalModelOffer]:
        # In a thread: settings and the HTTP client load there, not on the app's loop.
        return await asyncio.to_thread(self._local_model_offers)

    def _local_model_offers(self) -> list[LocalModelOffer]:
        from engine.doctor.discovery import discover_local_servers, wants_discovery

        if not wants_discovery(self.settings):
            return []
        servers = asyncio.run(discover_local_servers())
        return [
            LocalModelOffer(server.describe(), server.models[0], server.settings())
            for server in servers
        ]

    def env_file(self) -> Path:
        from engine.config import loaded_env_file

        try:
            found = loaded_env_file(cwd=self._cwd)
        except ValueError:
            found = None
        return found or self._cwd / ".env"

    @asynccontextmanager
    async def open_session(self, session_id: str | None) -> AsyncIterator[SessionDriver]:
        # The LangChain stack takes seconds to import: in a thread, so the screen keeps
        # drawing (the question just asked, its spinner) meanwhile.
        await asyncio.to_thread(importlib.import_module, "engine.run.runner")
        from engine import run_lock
        from engine.preflight import require_working_search
        from engine.run.runner import open_session

        # A search provider that cannot work stops here, naming the variable, not mid-run.
        require_working_search(self.settings)
        async with open_session(self.settings, session_id) as session:
            # Open here (paused at plan review, say): no other process may delete it meanwhile.
            run_lock.hold_open(self.settings, session.session_id)
            try:
                yield session
            finally:
                run_lock.release_open(self.settings, session.session_id)

    async def list_sessions(self) -> list[SessionInfo]:
        from engine.sessions import list_sessions

        result = list_sessions(self.settings)
        if asyncio.iscoroutine(result):
            result = await result
        return list(result)

    async def session_questions(self, session_ids: list[str]) -> dict[str, list[str]]:
        from engine.session_questions import stored_questions

        def read() -> dict[str, list[str]]:
            asked = {sid: stored_questions(self.settings, sid) for sid in session_ids}
            return {sid: questions for sid, questions in asked.items() if questions}

        return await asyncio.to_thread(read)

    async def load_session(self, session_id: str) -> list[Event] | None:
        from engine.events import PhaseChanged, SessionStarted
        from engine.sessions import get_session, load_report
        from engine.sessions_log import load_events

        events = await asyncio.to_thread(load_events, self.settings, session_id)
        if events:
            return list(events)
        # A session saved before event logs: its report and audit are still typed data.
        report = await asyncio.to_thread(load_report, self.settings, session_id)
        if report is None:
            return None
        info = get_session(self.settings, session_id)
        return [
            SessionStarted(
                session_id=session_id,
                question=info.question if info else "",
                offline=report.offline_notice is not None,
            ),
            report,
            PhaseChanged(phase="done"),
        ]

    async def delete_session(self, session_id: str) -> None:
        from engine.sessions import delete_session

        await asyncio.to_thread(delete_session, self.settings, session_id)

    def export_dir(self) -> Path:
        configured = self.settings.export_dir
        if configured is not None:
            return configured.expanduser()
        return self.settings.data_dir / "exports"

    async def export_report(
        self, report: ReportReady, *, question: str, session_id: str, fmt: str, path: Path
    ) -> Path:
        from engine.export import FORMATS, export_report

        if fmt not in FORMATS:
            raise ValueError(f"unknown export format {fmt!r}")
        return await asyncio.to_thread(
            export_report,
            report,
            question=question,
            session_id=session_id,
            fmt=fmt,  # checked against FORMATS above
            path=path,
        )

    def model_profiles(self) -> list[ModelProfileRow]:
        from engine.config import ROLES
        from engine.models.compat.profile import (
            cache_key,
            configured_profile,
            endpoint_label,
            load_cached,
        )

        settings = self.settings
        if settings.offline:
            return []
        cached = load_cached(settings)
        rows = []
        for role in ROLES:
            role_model = settings.role_model(role)
            entry = cached.get(cache_key(role_model.base_url, role_model.model)) or {}
            profile = configured_profile(settings, role, role_model)
            unknown = "not detected yet"
            stamp = entry.get("detected_at")
            rows.append(
                ModelProfileRow(
                    role=role,
                    model=role_model.model,
                    endpoint=endpoint_label(role_model.base_url),
                    context_window=settings.model_max_input_tokens,
                    tool_calling=profile.tool_calling if profile else unknown,
                    structured_output=profile.structured_output if profile else unknown,
                    source=profile.source if profile else unknown,
                    detected_at=float(stamp) if isinstance(stamp, int | float) else None,
                )
            )
        return rows

    async def doctor(self, *, probe: bool = False) -> DoctorSummary:
        from engine.doctor import collect_report_async

        report = await collect_report_async(self.settings, probe=probe)
        return DoctorSummary(report.render(), report.can_run)
