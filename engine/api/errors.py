"""One shape for every error the API answers: `{"error": "<what went wrong>"}`.

A refused body adds `fields` (each field and its problem, never the value sent). Errors that
FastAPI, Starlette or a middleware would answer in a shape of their own (`{"detail"}` for an
unknown route, plain text for a bad `Host`) are rewritten to the same shape, so a client
reads every failure the same way.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

_log = logging.getLogger("deepresearch.api")

Scope = dict[str, Any]


class FieldProblem(BaseModel):
    field: str = Field(description="Where in the request, dotted: `body.question`.")
    problem: str = Field(description="What is wrong with it (the value is not echoed).")


class ErrorBody(BaseModel):
    """Every error reply."""

    error: str = Field(description="What went wrong, in one sentence.")
    fields: list[FieldProblem] | None = Field(
        default=None, description="With 422: each refused field and its problem."
    )


Responses = dict[int | str, dict[str, Any]]


def _described(status: int, text: str) -> Responses:
    return {status: {"model": ErrorBody, "description": text}}


# What each error status means on this API, for the OpenAPI description.
BAD_REQUEST = _described(400, "The request is malformed (e.g. a Host that is not this one).")
UNAUTHORIZED = _described(401, "API_TOKEN is set and the bearer token is missing or wrong.")
TOO_LARGE = _described(413, "The body is over 64 KiB.")
INVALID = _described(422, "A field is missing or invalid; `fields` names each.")
NOT_FOUND = _described(404, "No saved session (or report) with this id.")
CONFLICT = _described(
    409, "The session is not in a state that allows this: busy, finished, not paused."
)
EVERY_ROUTE: Responses = {
    **BAD_REQUEST,
    **UNAUTHORIZED,
    **TOO_LARGE,
    **INVALID,
}


def error_response(status: int, message: str, headers: Any = None, **extra: Any) -> JSONResponse:
    body = ErrorBody(error=message, **extra).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # The offending values are not echoed back: they may be long, or someone's secret.
        fields = [
            FieldProblem(
                field=".".join(str(part) for part in error["loc"]),
                problem=str(error["msg"]).removeprefix("Value error, "),
            )
            for error in exc.errors()
        ]
        return error_response(422, "invalid request", fields=fields)

    # Starlette's own (an unknown route, a wrong method) as well as FastAPI's, its subclass.
    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        _log.error("request failed", exc_info=exc)
        return error_response(500, "internal error; see the server log")


class JsonErrors:
    """ASGI middleware: an error answered as anything but JSON (a middleware's plain text)
    is re-sent as `{"error": <its text>}` with the same status."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}
        parts: list[bytes] = []

        async def rewrite(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                kind = headers.get(b"content-type", b"").split(b";")[0].strip()
                if message["status"] >= 400 and kind != b"application/json":
                    held["start"] = message
                    return
            elif message["type"] == "http.response.body" and "start" in held:
                parts.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                text = b"".join(parts).decode("utf-8", "replace").strip()
                status = held["start"]["status"]
                body = json.dumps({"error": text or f"HTTP {status}"}).encode()
                kept = [
                    (name, value)
                    for name, value in held["start"].get("headers") or []
                    if name.lower() not in (b"content-type", b"content-length")
                ]
                kept += [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ]
                await send({"type": "http.response.start", "status": status, "headers": kept})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, rewrite)
