"""`deepresearch mcp`: research as tools any MCP client can call (stdio or streamable HTTP).

Tools: `research(question, mode, auto_approve)`, `review_plan(session_id, action, plan,
feedback)`, `get_report(session_id)`, `list_sessions()`. `research` drives the same session
driver as the app and reports each step the person would follow (`deepresearch run`'s
progress lines) as MCP progress notifications. It returns the verified report with its
citations, or, without `auto_approve`, the plan (or the clarifying question) the session
waits on; `review_plan` approves, edits, revises or cancels that plan and goes on from it as
`research` does (the app, `deepresearch run --resume` and the HTTP API can continue it too).

Arguments a tool refuses are named with what is wrong, never echoed back: they may be long,
or someone's secret.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from engine.api.bodies import MAX_QUESTION_CHARS
from engine.cli import package_version
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
from engine.question_text import BlankText, cleaned_text
from engine.run.runner import ResearchSession, drive, open_engine
from engine.schemas import PlanDecision, ResearchPlan
from engine.sessions import list_sessions as saved_sessions
from engine.sessions import load_report

INSTRUCTIONS = (
    "Deep research with verified citations. `research` plans, researches and writes a "
    "report whose every citation points at a source that was actually retrieved; quick "
    "questions take seconds, deep ones minutes. Without auto_approve it returns the plan it "
    "waits on: `review_plan` approves, edits, revises or cancels it. `get_report` reads a "
    "saved session's report."
)

Question = Annotated[
    str,
    Field(description="The research question, in plain words (at most 4,000 characters)."),
]
Mode = Annotated[
    Literal["auto", "quick", "deep"],
    Field(
        description="quick: one retrieval and a short cited answer; deep: a planned, "
        "multi-track report; auto: the engine decides from the question."
    ),
]
AutoApprove = Annotated[
    bool,
    Field(
        description="Approve the proposed plan as is (and proceed on the likeliest reading of "
        "an ambiguous question). False: stop at the plan and return it for review_plan."
    ),
]
SessionId = Annotated[
    str,
    Field(
        description="A session id, as research or list_sessions returned it.",
        pattern=r"^[A-Za-z0-9_-]{1,80}$",
    ),
]
Action = Annotated[
    Literal["approve", "edit", "revise", "cancel"],
    Field(
        description="approve: research the plan as proposed; edit: research the plan given "
        "in `plan` instead; revise: have the plan redrafted from `feedback`; cancel: end the "
        "session without research."
    ),
]
EditedPlan = Annotated[
    ResearchPlan | None,
    Field(
        description="The edited plan (required for edit; optional with revise): the plan "
        "research returned, changed."
    ),
]
Feedback = Annotated[
    str,
    Field(description="What to change in the plan (required for revise).", max_length=8_000),
]


class _ResearchServer(MCPServer):
    """The SDK's server, but a refused argument is named with its problem, not echoed."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"{name}: {_problems(cause)}") from cause


def _problems(error: ValidationError) -> str:
    """Each refused field and what is wrong with it, without the value given."""
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'arguments'}: {problem['msg']}"
        for problem in error.errors(include_input=False, include_url=False)
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

    server = _ResearchServer(
        name="deepresearch",
        version=package_version(),
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
    )
    _add_session_tools(server)
    _add_reading_tools(server, settings)
    return server


def _session(ctx: Context, session_id: str | None) -> ResearchSession:
    session_for: Callable[[str | None], ResearchSession] = ctx.request_context.lifespan_context[
        "session_for"
    ]
    return session_for(session_id)


def _question(text: str) -> str:
    if len(text) > MAX_QUESTION_CHARS:
        raise ToolError(f"question: at most {MAX_QUESTION_CHARS} characters")
    try:
        return cleaned_text(text)
    except BlankText:
        raise ToolError("question: give a research question") from None


async def _follow(
    session: ResearchSession, stream: AsyncIterator[Event], ctx: Context, auto_approve: bool
) -> dict[str, Any]:
    """Drive a leg to where the session pauses or ends, each step a progress notification."""
    seen: list[Event] = []

    async def progress(event: Event) -> None:
        seen.append(event)
        line = progress_line(event)
        if line:
            await ctx.report_progress(len(seen), None, line.strip())

    await drive(session, stream, auto_approve=auto_approve, on_event=progress)
    return _outcome(session.session_id, seen)


def _add_session_tools(server: MCPServer) -> None:
    @server.tool()
    async def research(
        question: Question,
        ctx: Context,
        mode: Mode = "auto",
        auto_approve: AutoApprove = True,
    ) -> dict[str, Any]:
        """Research a question and return a report with verified, numbered citations.

        With auto_approve (the default) the proposed plan is approved as is; without it, the
        session stops at its plan (or clarifying question) and returns it.
        """
        asked = _question(question)
        session = _session(ctx, None)
        return await _follow(session, session.start(asked, mode=mode), ctx, auto_approve)

    @server.tool()
    async def review_plan(
        session_id: SessionId,
        action: Action,
        ctx: Context,
        plan: EditedPlan = None,
        feedback: Feedback = "",
    ) -> dict[str, Any]:
        """Decide on the plan a session waits on (research with auto_approve false).

        Returns what research returns: the report, or the revised plan to review again.
        """
        try:
            decision = PlanDecision(action=action, plan=plan, feedback=feedback)
        except ValidationError as exc:
            raise ToolError(f"review_plan: {_problems(exc)}") from None
        session = _session(ctx, session_id)
        if await _waiting_for(session) != "plan_review":
            raise ToolError(f"review_plan: session {session_id} does not wait for a plan review")
        return await _follow(session, session.review_plan(decision), ctx, auto_approve=False)


def _add_reading_tools(server: MCPServer, settings: Settings) -> None:
    @server.tool()
    async def get_report(session_id: SessionId) -> dict[str, Any]:
        """The report of a saved session, with its citations."""
        found = load_report(settings, session_id)
        if found is None:
            raise ToolError(f"session {session_id} has no report")
        return report_body(session_id, found)

    @server.tool()
    async def list_sessions() -> list[dict[str, Any]]:
        """Saved sessions, newest first: id, question, status, when."""
        return [
            info.model_dump(include={"session_id", "question", "status", "updated_at", "mode"})
            for info in saved_sessions(settings)
        ]


async def _waiting_for(session: ResearchSession) -> str | None:
    """What the session is paused for ("plan_review", "clarification"), None if not paused."""
    snapshot = await session.graph.aget_state(session.config)
    for pending in snapshot.interrupts:
        if isinstance(pending.value, dict):
            return str(pending.value.get("kind"))
    return None


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
