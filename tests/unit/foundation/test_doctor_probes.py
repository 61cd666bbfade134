"""`doctor` probes what each LLM endpoint can do, prints it, and remembers the profile.

Driven against three servers: the shared offline-policy server (`OpenAIServer`), a stub that
does everything natively, and a stub that answers the way llama-cpp-python's
`chatml-function-calling` server does (HTTP 500 for `json_schema`; a streamed request with
tools and `tool_choice: "auto"` ends with no chunks or with HTTP 500; `json_object` works).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine import doctor
from engine.cli import main
from engine.config import settings_from_mapping
from engine.models.compat.profile import PROFILE_CACHE_FILE, configured_profile
from tests.fixtures.openai_server import OpenAIServer

KEY = "sk-doctor-secret"
JSON_REPLY = '{"city": "Paris"}'


@dataclass
class _Behaviour:
    """How the stub answers; `requests` records every chat body, `auth` every header seen."""

    kind: str = "native"  # "native" or "llama_cpp"
    auto_tools: str = "no_chunks"  # llama_cpp: "no_chunks" or "http_500"
    cut_streams: bool = False  # end every stream without a finish_reason
    chat_status: int | None = None  # answer every chat request with this HTTP status
    models_delay: float = 0.0  # seconds before GET /models answers (a busy server)
    # As llama-cpp-python's server: a request arriving while a reply streams ends that reply.
    single_slot: bool = False
    seconds_a_piece: float = 0.02
    arrived: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)


class _Stub(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    behaviour: _Behaviour

    def log_message(self, *args: object) -> None:
        return

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.behaviour.auth.append(self.headers.get("Authorization", ""))
        time.sleep(self.behaviour.models_delay)
        self._json(200, {"object": "list", "data": [{"id": "local", "object": "model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.behaviour.auth.append(self.headers.get("Authorization", ""))
        self.behaviour.requests.append(body)
        self.behaviour.arrived += 1
        if self.behaviour.chat_status is not None:
            self._json(self.behaviour.chat_status, {"error": {"message": "no such model"}})
            return
        answer = self._answer(body)
        if answer is None:
            return
        content, calls = answer
        self._stream(content, calls)

    def _answer(self, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]] | None:
        tools = body.get("tools") or []
        choice = body.get("tool_choice")
        kind = (body.get("response_format") or {}).get("type")
        llama = self.behaviour.kind == "llama_cpp"
        if kind == "json_schema" and llama:
            self._json(500, {"error": {"message": "Input should be 'text' or 'json_object'"}})
            return None
        if tools and isinstance(choice, dict):  # forced: grammar-constrained arguments
            return "", [_call(choice["function"]["name"], {"city": "Paris"})]
        if tools and choice == "auto":
            if llama and self.behaviour.auto_tools == "http_500":
                self._json(500, {"error": {"message": "Automatic streaming tool choice"}})
                return None
            if llama:  # the error happens once the stream has begun: no chunk at all
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                return None
            prompt = json.dumps(body.get("messages"))
            if "weather" in prompt:
                return "", [_call("get_weather", {"city": "Paris"})]
            return "hello", []
        if kind in ("json_schema", "json_object"):
            return JSON_REPLY, []
        if "Count from 1" in json.dumps(body.get("messages")):
            return " ".join(str(n) for n in range(1, 31)), []
        return "hello", []

    def _stream(self, content: str, calls: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "local",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())

        send({"role": "assistant", "content": ""})
        if self.behaviour.single_slot:
            if self._cut_by_another(send, content):
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                return
        elif content:
            send({"content": content})
        for index, call in enumerate(calls):
            send({"tool_calls": [{"index": index, **call}]})
        if not self.behaviour.cut_streams:
            send({}, "tool_calls" if calls else "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _cut_by_another(self, send: Any, content: str) -> bool:
        """The reply streamed a few characters at a time, as a model generates it, and ended
        without a finish reason (True) as soon as another request arrives."""
        mine = self.behaviour.arrived
        for start in range(0, len(content), 3):
            send({"content": content[start : start + 3]})
            self.wfile.flush()
            time.sleep(self.behaviour.seconds_a_piece)
            if self.behaviour.arrived != mine:
                return True
        return False


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{name}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


@pytest.fixture
def stub() -> Iterator[tuple[str, _Behaviour]]:
    behaviour = _Behaviour()
    handler = type("Stub", (_Stub,), {"behaviour": behaviour})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", behaviour
    finally:
        server.shutdown()
        server.server_close()


def _settings(base_url: str, data_dir: Path, **extra: str) -> Any:
    return settings_from_mapping(
        {
            "DATA_DIR": str(data_dir),
            "OPENAI_API_KEY": KEY,
            "ORCHESTRATOR_MODEL": "local",
            "ORCHESTRATOR_BASE_URL": base_url,
            "MODEL_MAX_INPUT_TOKENS": "16384",
            "LLM_TIMEOUT_SECONDS": "10",
            **extra,
        }
    )


def test_llama_cpp_like_server_becomes_prompted_with_json_object_and_is_remembered(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.kind = "llama_cpp"
    settings = _settings(base_url, tmp_path)
    report = doctor.collect_report(settings)
    text = report.render()
    port = base_url.split(":")[2].split("/")[0]

    assert report.can_run, text
    assert re.search(r"native tool call\s+no\s+refused the request", text)
    assert re.search(r"structured output: json_schema\s+no\s+refused the request", text)
    assert re.search(r"structured output: json_object\s+yes\s+valid JSON", text)
    assert "structured output: tool" not in text, "the probes stop at the first valid method"
    assert (
        "tools: prompted, JSON: json_object, context 16384 tokens (from MODEL_MAX_INPUT_TOKENS)"
        in text
    )
    cache = tmp_path / PROFILE_CACHE_FILE
    assert f"remembered for later runs in {cache}" in text
    stored = json.loads(cache.read_text())[f"127.0.0.1:{port}|local"]
    assert stored["tool_calling"] == "prompted"
    assert stored["structured_output"] == "json_object"
    # A later run's settings pick the detected profile up instead of probing again.
    profile = configured_profile(settings, "planner")
    assert profile is not None
    assert (profile.tool_calling, profile.structured_output) == ("prompted", "json_object")
    assert KEY not in text


def test_llama_cpp_auto_tools_as_http_500_is_a_refusal_too(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.kind, behaviour.auto_tools = "llama_cpp", "http_500"
    report = doctor.collect_report(_settings(base_url, tmp_path))
    assert report.can_run
    [endpoint] = report.endpoints
    assert endpoint.profile is not None
    assert endpoint.profile.tool_calling == "prompted"
    assert endpoint.profile.structured_output == "json_object"
    assert endpoint.capabilities[0].name == "native tool call"
    assert not endpoint.capabilities[0].ok


def test_a_fully_native_server_is_native_with_json_schema(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    report = doctor.collect_report(_settings(base_url, tmp_path))
    text = report.render()
    assert report.can_run, text
    assert re.search(r"native tool call\s+yes\s+returned tool_calls", text)
    assert re.search(r"text answer with tools bound\s+yes\s+answered in text", text)
    assert re.search(r"structured output: json_schema\s+yes\s+valid JSON", text)
    assert "tools: native, JSON: json_schema, context 16384 tokens" in text
    assert re.search(r"checked in \d+\.\d s", text)
    # Every request reached the configured endpoint with its key; no other host saw it.
    assert behaviour.auth and set(behaviour.auth) == {f"Bearer {KEY}"}
    streamed = [body.get("stream") for body in behaviour.requests]
    assert streamed and all(streamed), "probes are streamed, as real calls are"


def test_offline_policy_server_answers_neither_tools_nor_the_probe_schema(
    tmp_path: Path,
) -> None:
    # The offline policy only fills the graph's own schemas and never calls `get_weather`,
    # so the probes find a server that answers text only: prompted tools, text JSON.
    with OpenAIServer() as llm:
        report = doctor.collect_report(_settings(llm.base_url, tmp_path))
        sent = len(llm.requests)
    text = report.render()
    assert report.can_run, text
    assert re.search(r"native tool call\s+no\s+no parsed tool call", text)
    for method in ("json_schema", "json_object", "tool"):
        assert re.search(rf"structured output: {method}\s+no\s+reply was not JSON", text)
    assert re.search(r"plain text answer\s+yes\s+answered in text", text)
    assert "tools: prompted, JSON: text, context 16384 tokens" in text
    assert "no JSON method returned valid JSON" in text
    assert sent == 5, "one tool probe, three JSON methods, one plain answer"


def test_pinned_settings_that_disagree_with_the_probes_are_warned_about(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.kind = "llama_cpp"
    settings = _settings(
        base_url, tmp_path, MODEL_TOOL_CALLING="native", MODEL_STRUCTURED_OUTPUT="json_schema"
    )
    text = doctor.collect_report(settings).render()
    assert "pinned: MODEL_TOOL_CALLING=native, MODEL_STRUCTURED_OUTPUT=json_schema" in text
    assert "MODEL_TOOL_CALLING=native, but the probes found no working native tool calls" in text
    assert "MODEL_STRUCTURED_OUTPUT=json_schema, but the probes found json_object" in text


def test_pins_that_agree_draw_no_warning(tmp_path: Path, stub: tuple[str, _Behaviour]) -> None:
    base_url, behaviour = stub
    behaviour.kind = "llama_cpp"
    settings = _settings(
        base_url, tmp_path, MODEL_TOOL_CALLING="prompted", MODEL_STRUCTURED_OUTPUT="json_object"
    )
    text = doctor.collect_report(settings).render()
    assert "but the probes found" not in text


def test_streams_cut_without_a_finish_reason_are_flagged(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.cut_streams = True
    text = doctor.collect_report(_settings(base_url, tmp_path)).render()
    assert re.search(r"\d probe replies ended without a finish reason", text)
    assert "--interrupt_requests false" in text


def test_a_server_that_cuts_a_reply_when_another_arrives_is_served_one_at_a_time(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    """Found by the probes, not by the first parallel researchers losing their replies."""
    base_url, behaviour = stub
    behaviour.single_slot = True
    settings = _settings(base_url, tmp_path)
    report = doctor.collect_report(settings)
    text = report.render()
    assert report.can_run, text
    assert re.search(r"parallel requests\s+no\s+one at a time", text)
    # The cut was asked for: no warning that the server was busy during the probes.
    assert "ended without a finish reason" not in text
    profile = configured_profile(settings, "researcher")
    assert profile is not None and profile.one_at_a_time


def test_a_fast_server_is_still_caught_cutting_and_a_restarted_one_is_asked_afresh(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.single_slot, behaviour.seconds_a_piece = True, 0.001  # a GPU's speed
    settings = _settings(base_url, tmp_path)
    text = doctor.collect_report(settings).render()
    assert re.search(r"parallel requests\s+no\s+one at a time", text)
    # Restarted to queue requests instead: doctor asks again and the profile forgets it.
    behaviour.single_slot = False
    text = doctor.collect_report(settings).render()
    assert re.search(r"parallel requests\s+yes\s+answered side by side", text)
    profile = configured_profile(settings, "researcher")
    assert profile is not None and not profile.one_at_a_time


def test_a_server_that_answers_side_by_side_is_not_served_one_at_a_time(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, _ = stub
    settings = _settings(base_url, tmp_path)
    text = doctor.collect_report(settings).render()
    assert re.search(r"parallel requests\s+yes\s+answered side by side", text)
    profile = configured_profile(settings, "researcher")
    assert profile is not None and not profile.one_at_a_time


def test_a_server_that_refuses_every_chat_request_cannot_run(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    behaviour.chat_status = 404
    report = doctor.collect_report(_settings(base_url, tmp_path))
    text = report.render()
    assert not report.can_run
    assert re.search(r"plain text answer\s+no\s+refused the request \(HTTP 404\)", text)
    assert "answered no chat request" in text and "check the model name (local)" in text
    assert not (tmp_path / PROFILE_CACHE_FILE).exists()
    assert "cannot run" in text


def test_roles_sharing_an_endpoint_are_probed_once_and_others_apart(
    tmp_path: Path, stub: tuple[str, _Behaviour]
) -> None:
    base_url, behaviour = stub
    settings = _settings(base_url, tmp_path, WRITER_MODEL="bigger")
    report = doctor.collect_report(settings)
    by_model = {endpoint.model: endpoint.roles for endpoint in report.endpoints}
    assert by_model == {"local": ("orchestrator", "researcher", "planner"), "bigger": ("writer",)}
    text = report.render()
    assert "model local (used by orchestrator, researcher, planner)" in text
    assert "model bigger (used by writer)" in text
    models = {body["model"] for body in behaviour.requests}
    assert models == {"local", "bigger"}
    # Five probes each (tool call, text with tools, json_schema, two side by side): ten in
    # all, not twenty.
    assert len(behaviour.requests) == 10


def test_a_busy_server_that_is_slow_on_get_models_is_still_probed(
    tmp_path: Path, stub: tuple[str, _Behaviour], monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama-cpp-python answers GET /models only between generations.
    monkeypatch.setattr(doctor, "PROBE_TIMEOUT_SECONDS", 0.2)
    base_url, behaviour = stub
    behaviour.kind, behaviour.models_delay = "llama_cpp", 0.6
    report = doctor.collect_report(_settings(base_url, tmp_path))
    text = report.render()
    assert re.search(r"!\s+reachable\s+connected, but no answer within 0.2 s to GET /models", text)
    assert "tools: prompted, JSON: json_object" in text
    assert report.can_run, text


def test_no_probe_sends_nothing(tmp_path: Path, stub: tuple[str, _Behaviour]) -> None:
    base_url, behaviour = stub
    report = doctor.collect_report(_settings(base_url, tmp_path), probe=False)
    assert behaviour.auth == [] and behaviour.requests == []
    assert report.endpoints == []
    assert not (tmp_path / PROFILE_CACHE_FILE).exists()


def test_unreachable_endpoint_names_host_and_port_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    monkeypatch.chdir(tmp_path)
    for name, value in {
        "DATA_DIR": str(tmp_path / "data"),
        "OPENAI_API_KEY": KEY,
        "ORCHESTRATOR_BASE_URL": f"http://user:pw@127.0.0.1:{port}/v1",
        "ORCHESTRATOR_MODEL": "local",
    }.items():
        monkeypatch.setenv(name, value)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if " reachable " in line]
    assert line.rstrip().endswith(f"unreachable (127.0.0.1:{port})"), line
    assert "!!" in line
    assert KEY not in out and "user:pw" not in out
    assert "A research session cannot run" in out
    assert "native tool call" not in out, "no capability probes against a dead endpoint"
