"""The HTTP API: sessions started, reviewed and read over REST, their events over SSE.

Every route drives the same session driver as the app and `deepresearch run`
(`engine.run.runner.ResearchSession`) and streams the same typed events (`engine.events`); none
re-implements orchestration or verification. OpenAPI is served at `/docs`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, HTTPException, Path, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import ValidationError
from sse_starlette import EventSourceResponse
from starlette.middleware.trustedhost import TrustedHostMiddleware

from engine.api.bodies import ClarificationAnswer, FollowUp, PlanReview, ResearchRequest
from engine.api.engine_process import ProcessRuns
from engine.api.errors import (
    CONFLICT,
    EVERY_ROUTE,
    NOT_FOUND,
    JsonErrors,
    Responses,
    install_error_handlers,
)
from engine.api.legs import RESUME_LEG, Leg, answer_leg, review_leg, start_leg
from engine.api.limits import BodyLimit
from engine.api.public_paths import public_event, without_server_paths
from engine.api.runs import SessionBusy, SessionRuns
from engine.api.serve_settings import engine_processes as engine_processes_setting
from engine.api.stream import event_stream, session_events
from engine.config import Settings
from engine.nodes.deps import EngineDeps
from engine.schemas import PlanDecision
from engine.sessions import get_session, list_sessions, load_report
from engine.sessions_log import load_events, run_outcome

SESSION_ID = Path(pattern=r"^[A-Za-z0-9_-]{1,80}$", description="a session id")
# sse_starlette adds X-Accel-Buffering: no itself; its Cache-Control default is no-store.
_SSE_HEADERS = {"Cache-Control": "no-cache"}


LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]", "::1"]


def create_app(
    settings: Settings,
    *,
    deps: EngineDeps | None = None,
    host: str = "127.0.0.1",
    engine_processes: int | None = None,
) -> FastAPI:
    """The API's app; `engine_processes` None: `ENGINE_PROCESSES` (a bad value raises a
    `SettingsError` naming it here, before anything is served)."""
    processes = engine_processes_setting() if engine_processes is None else engine_processes

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # The engine in processes of its own, so its CPU work never delays a request; given
        # scripted dependencies (tests, embedding), on a thread of this process.
        runs: SessionRuns | ProcessRuns = (
            ProcessRuns(settings, processes) if deps is None else SessionRuns(settings, deps)
        )
        await runs.start()
        app.state.runs = runs
        try:
            yield
        finally:
            await runs.close()

    guarded = settings.api_token is not None
    app = FastAPI(
        title="deepresearch",
        summary="Research sessions with verified citations: start, review, stream, read.",
        lifespan=lifespan,
        dependencies=[Depends(_authorized(settings))],
        # With a token, the API's description is not handed out without it either.
        docs_url=None if guarded else "/docs",
        redoc_url=None if guarded else "/redoc",
        openapi_url=None if guarded else "/openapi.json",
        responses=EVERY_ROUTE,
    )
    app.add_middleware(BodyLimit)
    if not guarded:
        # Without a token only this machine may call: a web page the person visits must not
        # reach the API through a DNS name rebound to 127.0.0.1.
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=[*LOOPBACK_HOSTS, host])
    # Outermost: whatever a middleware answers in plain text reaches the client as JSON.
    app.add_middleware(JsonErrors)
    install_error_handlers(app)
    _add_routes(app, settings)
    return app


# A security scheme, so the OpenAPI description says how to authenticate (API_TOKEN).
_BEARER = HTTPBearer(
    auto_error=False,
    description="API_TOKEN, when the server sets one: `Authorization: Bearer <API_TOKEN>`.",
)


_TOKEN = Depends(_BEARER)


def _authorized(settings: Settings) -> Any:
    token = settings.api_token.get_secret_value() if settings.api_token else None

    async def check(
        request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, _TOKEN]
    ) -> None:
        if token is None or request.url.path == "/healthz":
            return
        given = credentials.credentials if credentials is not None else ""
        matches = hmac.compare_digest(given.strip().encode(), token.encode())
        if credentials is None or not matches:
            raise HTTPException(
                401,
                "a bearer token (API_TOKEN) is required",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return check


def _add_routes(app: FastAPI, settings: Settings) -> None:
    api = _Sessions(settings)
    _add_research_routes(app, api)
    _add_reading_routes(app, api)
    _add_review_routes(app, api)


class _Sessions:
    """What the routes share: the settings, and launching and streaming this worker's runs."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @staticmethod
    def runs(request: Request) -> SessionRuns | ProcessRuns:
        runs: SessionRuns | ProcessRuns = request.app.state.runs
        return runs

    async def launch(
        self, request: Request, session_id: str | None, leg: Leg, auto: bool = False
    ) -> str:
        try:
            return await self.runs(request).launch(session_id, leg, auto_approve=auto)
        except SessionBusy as busy:
            raise HTTPException(409, busy.detail) from None

    def stream(self, request: Request, session_id: str, after: int = 0) -> EventSourceResponse:
        active = self.runs(request)
        settings = self.settings

        async def still_running() -> bool:
            if active.busy(session_id):
                return True
            info = await asyncio.to_thread(get_session, settings, session_id)
            return info is not None and info.status == "running"

        events = session_events(
            settings, session_id, active, after=after, still_running=still_running
        )
        frames = (public_event(event) async for event in events)
        return event_stream(frames, {**_SSE_HEADERS, "X-Session-Id": session_id})

    async def stage(self, request: Request, session_id: str) -> str:
        found = await self.runs(request).stage(session_id)
        if found == "new":
            raise HTTPException(404, f"no saved session {session_id!r}")
        return found


def _add_research_routes(app: FastAPI, api: _Sessions) -> None:
    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/research", response_class=EventSourceResponse, responses=CONFLICT)
    async def research(body: ResearchRequest, request: Request) -> EventSourceResponse:
        """Start a session; its events as Server-Sent Events until it pauses or ends."""
        question, mode = body.question.strip(), body.mode
        session_id = await api.launch(request, None, start_leg(question, mode), body.auto_approve)
        return api.stream(request, session_id)

    @app.post("/v1/research/sync")
    async def research_sync(body: ResearchRequest, request: Request) -> JSONResponse:
        """Run a session to its end (plan approved as proposed) and return the report."""
        question, mode = body.question.strip(), body.mode
        session_id = await api.launch(request, None, start_leg(question, mode), True)
        await api.runs(request).finished(session_id)
        return await asyncio.to_thread(_outcome, api.settings, session_id)


def _add_reading_routes(app: FastAPI, api: _Sessions) -> None:
    @app.get("/v1/sessions")
    async def sessions() -> list[dict[str, Any]]:
        # Off the loop: the index may be a PostgreSQL query away.
        listed = await asyncio.to_thread(list_sessions, api.settings)
        return [without_server_paths(info.model_dump()) for info in listed]

    @app.get("/v1/sessions/{session_id}", responses=NOT_FOUND)
    async def session(request: Request, session_id: str = SESSION_ID) -> dict[str, Any]:
        info = await asyncio.to_thread(get_session, api.settings, session_id)
        if info is None:
            raise HTTPException(404, f"no saved session {session_id!r}")
        stage = await api.stage(request, session_id)
        return {**without_server_paths(info.model_dump()), "stage": stage}

    @app.get(
        "/v1/sessions/{session_id}/events", response_class=EventSourceResponse, responses=NOT_FOUND
    )
    async def events(
        request: Request,
        session_id: str = SESSION_ID,
        last_event_id: int = Header(0, ge=0, alias="Last-Event-ID"),
    ) -> EventSourceResponse:
        """The session's events after `Last-Event-ID`, live while it runs."""
        if await asyncio.to_thread(get_session, api.settings, session_id) is None:
            raise HTTPException(404, f"no saved session {session_id!r}")
        return api.stream(request, session_id, after=last_event_id)

    @app.get("/v1/sessions/{session_id}/report", responses=NOT_FOUND)
    async def report(session_id: str = SESSION_ID) -> dict[str, Any]:
        found = await asyncio.to_thread(load_report, api.settings, session_id)
        if found is None:
            raise HTTPException(404, f"session {session_id!r} has no report yet")
        return dict(without_server_paths(found.model_dump(mode="json")))


_MISSING_OR_BUSY: Responses = {**NOT_FOUND, **CONFLICT}


def _add_review_routes(app: FastAPI, api: _Sessions) -> None:
    @app.post("/v1/sessions/{session_id}/plan", status_code=202, responses=_MISSING_OR_BUSY)
    async def review(
        body: PlanReview, request: Request, session_id: str = SESSION_ID
    ) -> dict[str, str]:
        """Approve, edit, revise with feedback or cancel the plan a session waits on."""
        try:
            decision = PlanDecision.model_validate(body.model_dump())
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise HTTPException(422, problem) from None
        await _require_stage(request, session_id, "paused", api.stage)
        await api.launch(request, session_id, review_leg(decision.model_dump(mode="json")))
        return _accepted(session_id)

    @app.post(
        "/v1/sessions/{session_id}/clarification", status_code=202, responses=_MISSING_OR_BUSY
    )
    async def clarify(
        body: ClarificationAnswer, request: Request, session_id: str = SESSION_ID
    ) -> dict[str, str]:
        await _require_stage(request, session_id, "paused", api.stage)
        answer = body.answer.strip()
        await api.launch(request, session_id, answer_leg(answer))
        return _accepted(session_id)

    @app.post("/v1/sessions/{session_id}/resume", status_code=202, responses=_MISSING_OR_BUSY)
    async def resume(request: Request, session_id: str = SESSION_ID) -> dict[str, str]:
        """Continue a session from its last checkpoint (a worker that died mid-run)."""
        if await api.stage(request, session_id) == "finished":
            raise HTTPException(409, "the session is finished; ask a follow-up instead")
        await api.launch(request, session_id, RESUME_LEG)
        return _accepted(session_id)

    @app.post("/v1/sessions/{session_id}/questions", status_code=202, responses=_MISSING_OR_BUSY)
    async def follow_up(
        body: FollowUp, request: Request, session_id: str = SESSION_ID
    ) -> dict[str, str]:
        """Ask a follow-up question in a finished session."""
        await _require_stage(request, session_id, "finished", api.stage)
        question, mode = body.question.strip(), body.mode
        await api.launch(request, session_id, start_leg(question, mode), body.auto_approve)
        return _accepted(session_id)

    @app.post("/v1/sessions/{session_id}/cancel", status_code=202, responses=CONFLICT)
    async def cancel(request: Request, session_id: str = SESSION_ID) -> dict[str, str]:
        if not await api.runs(request).cancel(session_id):
            raise HTTPException(409, "the session is not running in this worker")
        return _accepted(session_id)


async def _require_stage(request: Request, session_id: str, wanted: str, stage: Any) -> None:
    found = await stage(request, session_id)
    if found != wanted:
        waiting = {"paused": "waits for an answer or a plan review", "finished": "is finished"}
        raise HTTPException(
            409,
            f"the session {waiting.get(found, 'is not paused')}; this needs one that "
            f"{waiting.get(wanted, wanted)}",
        )


def _accepted(session_id: str) -> dict[str, str]:
    return {"session_id": session_id, "events": f"/v1/sessions/{session_id}/events"}


def _outcome(settings: Settings, session_id: str) -> JSONResponse:
    """The finished session as JSON: status, report, citations, claims and token usage."""
    outcome = run_outcome(load_events(settings, session_id) or [])
    status = outcome.status or "interrupted"
    usage = {
        "input_tokens": outcome.input_tokens,
        "output_tokens": outcome.output_tokens,
        "cost_usd": round(outcome.cost_usd, 6),
    }
    found = outcome.report or load_report(settings, session_id)
    body: dict[str, Any] = {"session_id": session_id, "status": status, "usage": usage}
    if outcome.error:
        body["error"] = outcome.error
    if found is not None:
        body["report"] = without_server_paths(found.model_dump(mode="json"))
    return JSONResponse(body, status_code=502 if status == "failed" else 200)
