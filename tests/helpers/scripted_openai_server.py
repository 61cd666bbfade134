"""An OpenAI-compatible server on 127.0.0.1 whose replies a test scripts, request by request.

    def answer(body: dict) -> Answer:
        return Answer(content='{"city": "Paris"}')

    with ScriptedOpenAIServer(answer) as llm:       # llm.base_url ends in /v1
        ...
        llm.requests                                # every chat-completions body received

`POST /v1/chat/completions` calls the responder with the request body. An `Answer` with a
status of 400 or more is sent as an OpenAI-style JSON error; otherwise its `content` is the
assistant's message, as one JSON body or, when the request streams, as server-sent events
(with a usage chunk when `stream_options.include_usage` is set), built the way the replay
server builds them. `GET /v1/models` lists one model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fixtures.replay_server import stream_from_completion
from tests.fixtures.web_server import BackgroundServer

MODEL_ID = "scripted"


@dataclass(frozen=True)
class Answer:
    content: str = ""
    status: int = 200
    prompt_tokens: int = 100
    completion_tokens: int = 20


Responder = Callable[[dict[str, Any]], Answer]


def _completion(body: dict[str, Any], answer: Answer) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model") or MODEL_ID,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer.content},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "total_tokens": answer.prompt_tokens + answer.completion_tokens,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    server: _ScriptedHTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "invalid_request"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": "not found", "type": "invalid_request"}})
            return
        with self.server.lock:
            self.server.bodies.append(body)
        answer = self.server.responder(body)
        if answer.status >= 400:
            error = {"message": answer.content or "scripted error", "type": "invalid_request"}
            self._send_json(answer.status, {"error": error})
            return
        completion = _completion(body, answer)
        if not body.get("stream"):
            self._send_json(200, completion)
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for chunk in stream_from_completion(completion, include_usage=include_usage):
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _ScriptedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, responder: Responder) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.responder = responder
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


class ScriptedOpenAIServer(BackgroundServer):
    """The server on http://127.0.0.1:PORT/v1, answering with `responder(body)`."""

    def __init__(self, responder: Responder) -> None:
        self._scripted = _ScriptedHTTPServer(responder)
        super().__init__(self._scripted)

    def __enter__(self) -> ScriptedOpenAIServer:
        self.start()
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._scripted.lock:
            return list(self._scripted.bodies)
