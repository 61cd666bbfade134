"""`deepresearch mcp`: research as tools any MCP client can call (stdio or streamable HTTP).

Tools: `research(question, mode, auto_approve)`, `get_report(session_id)`,
`list_sessions()`. `research` drives the same session driver as the app and reports each
step the person would follow (`deepresearch run`'s progress lines) as MCP progress
notifications. It returns the verified report with its citations, or, without
`auto_approve`, the plan (or the clarifying question) the session waits on; the session can
then be continued from the app, `deepresearch run --resume`, or the HTTP API.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from engine.api.bodies import MAX_QUESTION_CHARS
from engine.commands.run import progress_line
from engine.config import Settings
from engine.events import (
    ClarificationRequested,
    Event,
    PlanProposed,
    ReportReady,
    RunFailed,
    RunFinished,
)
from engine.nodes.deps import EngineDeps
from engine.runner import ResearchSession, drive, open_engine
from engine.sessions import list_sessions as saved_sessions
from engine.sessions import load_report

INSTRUCTIONS = (
    "Deep research with verified citations. `research` plans, researches and writes a "
    "report whose every citation points at a source that was actually retrieved; quick "
    "questions take seconds, deep ones minutes. `get_report` reads a saved session's report."
)


def report_body(session_id: str, report: ReportReady) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "status": "completed",
        "verification_status": report.verification_status,
        "report": report.report,
        "citations": [entry.model_dump() for entry in report.kept_citations],
        "removed_citations": len(report.removed_citations),
    }


def build_mcp_server(settings: Settings, *, deps: EngineDeps | None = None) -> MCPServer:
    @contextlib.asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        async with open_engine(settings, deps=deps) as session_for:
            yield {"session_for": session_for}

    server = MCPServer(name="deepresearch", instructions=INSTRUCTIONS, lifespan=lifespan)

    @server.tool()
    async def research(
        question: str,
        ctx: Context,
        mode: Literal["auto", "quick", "deep"] = "auto",
        auto_approve: bool = True,
    ) -> dict[str, Any]:
        """Research a question and return a report with verified, numbered citations.

        With auto_approve (the default) the proposed plan is approved as is; without it, the
        session stops at its plan (or clarifying question) and returns it.
        """
        if not question.strip():
            raise ToolError("question: give a research question")
        if len(question) > MAX_QUESTION_CHARS:
            raise ToolError(f"question: at most {MAX_QUESTION_CHARS} characters")
        session_for: Callable[[str | None], ResearchSession] = ctx.request_context.lifespan_context[
            "session_for"
        ]
        session = session_for(None)
        seen: list[Event] = []

        async def progress(event: Event) -> None:
            seen.append(event)
            line = progress_line(event)
            if line:
                await ctx.report_progress(len(seen), None, line.strip())

        stream = session.start(question.strip(), mode=mode)
        await drive(session, stream, auto_approve=auto_approve, on_event=progress)
        return _outcome(session.session_id, seen)

    @server.tool()
    async def get_report(session_id: str) -> dict[str, Any]:
        """The report of a saved session, with its citations."""
        found = load_report(settings, session_id)
        if found is None:
            raise ToolError(f"session {session_id!r} has no report")
        return report_body(session_id, found)

    @server.tool()
    async def list_sessions() -> list[dict[str, Any]]:
        """Saved sessions, newest first: id, question, status, when."""
        return [
            info.model_dump(include={"session_id", "question", "status", "updated_at", "mode"})
            for info in saved_sessions(settings)
        ]

    return server


def _outcome(session_id: str, events: list[Event]) -> dict[str, Any]:
    for event in reversed(events):
        if isinstance(event, RunFinished) and event.status == "cancelled":
            return {"session_id": session_id, "status": "cancelled"}
        if isinstance(event, ReportReady):
            return report_body(session_id, event)
        if isinstance(event, RunFailed):
            return {"session_id": session_id, "status": "failed", "error": event.error}
        if isinstance(event, PlanProposed):
            plan = event.plan.model_dump(mode="json")
            return {"session_id": session_id, "status": "awaiting_plan_review", "plan": plan}
        if isinstance(event, ClarificationRequested):
            return {
                "session_id": session_id,
                "status": "awaiting_clarification",
                "question": event.question,
            }
    return {"session_id": session_id, "status": "ended without a report"}
