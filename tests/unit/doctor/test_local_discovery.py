"""Finding a local OpenAI-compatible server: only GET /v1/models on 127.0.0.1, a short wait,
and only servers that list models; doctor lists what answered and how to use it."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine import doctor
from engine.config import settings_from_mapping
from engine.doctor.discovery import discover_local_servers, model_names, wants_discovery


class _Stub(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status, self.body = status, body
        self.seen: list[tuple[str, str, dict[str, str]]] = []


class _Handler(BaseHTTPRequestHandler):
    server: _Stub

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(self) -> None:
        self.server.seen.append((self.command, self.path, dict(self.headers)))
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    do_GET = do_POST = _record


@contextmanager
def stub(status: int = 200, payload: Any = None, raw: bytes | None = None) -> Iterator[_Stub]:
    body = raw if raw is not None else json.dumps(payload).encode()
    server = _Stub(status, body)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return port


MODELS = {"object": "list", "data": [{"id": "qwen2.5:7b"}, {"id": "llama3.2:3b"}]}


async def test_lists_the_models_of_the_server_that_answers_and_sends_nothing_else() -> None:
    with stub(payload=MODELS) as ollama:
        port = ollama.server_address[1]
        found = await discover_local_servers(((closed_port(), "vLLM"), (port, "Ollama")))
    assert [(s.port, s.usual_for, s.models) for s in found] == [
        (port, "Ollama", ("qwen2.5:7b", "llama3.2:3b"))
    ]
    [(method, path, headers)] = ollama.seen
    assert (method, path) == ("GET", "/v1/models")
    assert "Authorization" not in headers and "Content-Length" not in headers
    assert found[0].settings() == {
        "ORCHESTRATOR_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "ORCHESTRATOR_MODEL": "qwen2.5:7b",
    }


@pytest.mark.parametrize(
    ("status", "raw"),
    [
        (404, b'{"error": "no such path"}'),
        (200, b"<html>a web app, not a model server</html>"),
        (200, b'{"object": "list", "data": []}'),
    ],
)
async def test_a_port_that_does_not_list_models_is_not_offered(status: int, raw: bytes) -> None:
    with stub(status, raw=raw) as other:
        assert await discover_local_servers(((other.server_address[1], "llama.cpp"),)) == []


async def test_a_server_that_never_answers_costs_no_more_than_the_timeout() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts the connection, never answers
    try:
        started = time.monotonic()
        found = await discover_local_servers(
            ((listener.getsockname()[1], "LM Studio"),), timeout=0.2
        )
        assert found == [] and time.monotonic() - started < 2.0
    finally:
        listener.close()


def test_model_names_are_made_safe_to_show() -> None:
    payload = {"data": [{"id": "evil\x1b[2Jmodel\nname"}, {"id": 3}, {"id": ""}, "x"]}
    assert model_names(payload) == ("evilmodel name",)  # the escape sequence gone whole
    assert model_names(["not", "a", "dict"]) == ()


@pytest.mark.parametrize(
    ("values", "wanted"),
    [
        ({}, True),
        ({"ORCHESTRATOR_MODEL": "offline"}, False),
        ({"ORCHESTRATOR_BASE_URL": "http://127.0.0.1:9/v1"}, False),
        ({"OPENAI_API_KEY": "sk-test"}, False),
    ],
)
def test_only_a_setup_with_no_endpoint_is_worth_a_look(
    values: dict[str, str], wanted: bool, tmp_path: Path
) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path), **values})
    assert wants_discovery(settings) is wanted


def test_doctor_lists_what_answered_and_the_settings_that_use_it(tmp_path: Path) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    with stub(payload=MODELS) as ollama:
        port = ollama.server_address[1]
        silent = closed_port()
        report = doctor.collect_report(settings, local_ports=((port, "Ollama"), (silent, "vLLM")))
    text = report.render()
    assert f"127.0.0.1:{port} (Ollama's usual port): 2 models (qwen2.5:7b, llama3.2:3b)" in text
    assert f"ORCHESTRATOR_BASE_URL=http://127.0.0.1:{port}/v1 ORCHESTRATOR_MODEL=qwen2.5:7b" in text
    assert report.can_run  # the offline model still runs; discovery only offers


def test_doctor_says_when_no_local_server_answered(tmp_path: Path) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    silent = closed_port()
    text = doctor.collect_report(settings, local_ports=((silent, "vLLM"),)).render()
    assert f"none answered on ports {silent}" in text
