"""Request bodies are small: anything larger is refused before it is read whole."""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException

MAX_BODY_BYTES = 64 * 1024

Scope = dict[str, Any]


class BodyLimit:
    """ASGI middleware answering 413 to a body over MAX_BODY_BYTES, declared or streamed."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            await _too_large(send)
            return
        received = 0

        async def counted() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY_BYTES:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _too_large(send)


class _TooLarge(HTTPException):
    # An HTTPException, so FastAPI re-raises it from body parsing instead of answering 400.
    def __init__(self) -> None:
        super().__init__(413, f"the request body is over {MAX_BODY_BYTES} bytes")


async def _too_large(send: Any) -> None:
    body = json.dumps({"error": f"the request body is over {MAX_BODY_BYTES} bytes"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
