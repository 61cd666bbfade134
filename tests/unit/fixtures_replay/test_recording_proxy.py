"""The recording proxy: live SSE passthrough, no credentials on disk, record → replay."""

from __future__ import annotations

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import openai
import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from tests.fixtures.openai_server import OpenAIServer
from tests.fixtures.recording_proxy import RecordingProxy, SSEParser
from tests.fixtures.replay_server import ReplayServer
from tests.fixtures.transcripts import load_cassette
from tests.fixtures.web_server import BackgroundServer

SECRET = "sk-test-0123456789abcdefSECRET"


@tool
def search_web(query: str) -> str:
    """Search the documents for a query."""
    return query


def _model(base_url: str, api_key: str = SECRET, **kwargs) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=base_url, api_key=api_key, model="local", max_retries=0, timeout=5, **kwargs
    )


def _joined(chunks):
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


# ---- a stub upstream whose stream pauses until the test has seen the first chunk ----------


class _GatedHandler(BaseHTTPRequestHandler):
    server: _GatedServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        return

    def do_POST(self):
        self.server.headers_seen.append(dict(self.headers.items()))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(delta, finish=None):
            chunk = {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        send({"role": "assistant", "content": "first"})
        self.server.released = self.server.release.wait(10)
        send({"content": " second"})
        send({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _GatedServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _GatedHandler)
        self.release = threading.Event()
        self.released = False
        self.headers_seen: list[dict[str, str]] = []

    def serve_forever(self, poll_interval=0.05):
        super().serve_forever(poll_interval)


def test_stream_is_relayed_chunk_by_chunk_while_upstream_is_still_generating(tmp_path):
    gated = _GatedServer()
    cassette = tmp_path / "live.jsonl"
    with (
        BackgroundServer(gated) as upstream,
        RecordingProxy(f"{upstream.base_url}/v1", cassette) as proxy,
    ):
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
        started = time.monotonic()
        with httpx.stream(
            "POST",
            f"{proxy.base_url}/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {SECRET}"},
            timeout=15,
        ) as resp:
            lines = resp.iter_lines()
            first = next(line for line in lines if line.startswith("data:"))
            first_seen_after = time.monotonic() - started
            assert not gated.release.is_set()
            time.sleep(0.3)
            gated.release.set()
            rest = [line for line in lines if line.startswith("data:")]
        assert '"first"' in first
        assert first_seen_after < 5  # not held back until the upstream finished
        assert gated.released
        assert rest[-1] == "data: [DONE]"
        assert gated.headers_seen[0]["Authorization"] == f"Bearer {SECRET}"
    exchange = load_cassette(cassette).exchanges[0]
    contents = [c["choices"][0]["delta"].get("content") for c in exchange.stream]
    assert contents[:2] == ["first", " second"]
    assert exchange.response is None and exchange.status == 200
    assert exchange.elapsed_seconds >= 0.3  # timed until the stream ended


def test_record_then_replay_gives_the_same_messages(tmp_path):
    cassette = tmp_path / "round.jsonl"
    question = "How do you cancel an asyncio task?"
    with OpenAIServer() as upstream, RecordingProxy(upstream.base_url, cassette) as proxy:
        model = _model(proxy.base_url, stream_usage=True)
        bound = model.bind_tools([search_web])
        live_plain = model.invoke(question)
        live_tools = bound.invoke(question)
        live_streamed = _joined(list(bound.stream(question)))
        assert len(upstream.requests) == 3
        assert proxy.recorded == 3
    text = cassette.read_text()
    assert SECRET not in text and "0123456789abcdef" not in text
    assert "authorization" not in text.lower() and "api_key" not in text.lower()
    recorded = load_cassette(cassette)
    assert recorded.header["base_url_redacted"].startswith("127.0.0.1:")
    assert [e.streamed for e in recorded] == [False, False, True]
    assert live_tools.tool_calls  # the stub answers a bound search tool with a call

    with ReplayServer(cassette, strict=True) as replay:
        model = _model(replay.base_url, api_key="x", stream_usage=True)
        bound = model.bind_tools([search_web])
        assert model.invoke(question).content == live_plain.content
        replayed_tools = bound.invoke(question)
        replayed_streamed = _joined(list(bound.stream(question)))
        assert replay.match_kinds() == ["exact", "exact", "exact"]
    assert replayed_tools.tool_calls == live_tools.tool_calls
    assert replayed_tools.content == live_tools.content
    assert replayed_streamed.tool_calls == live_streamed.tool_calls
    assert replayed_streamed.usage_metadata == live_streamed.usage_metadata


def test_upstream_http_error_is_passed_through_and_recorded(tmp_path):
    cassette = tmp_path / "err.jsonl"
    with OpenAIServer() as upstream, RecordingProxy(upstream.base_url, cassette) as proxy:
        upstream.fail("server_error")
        with pytest.raises(openai.InternalServerError) as caught:
            _model(proxy.base_url).invoke("hello")
        assert caught.value.status_code == 500
    exchange = load_cassette(cassette).exchanges[0]
    assert exchange.status == 500
    assert exchange.response["error"]["message"] == "internal error"
    with ReplayServer(cassette) as replay, pytest.raises(openai.InternalServerError):
        _model(replay.base_url).invoke("hello")


def test_unreachable_upstream_is_a_recorded_502(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    cassette = tmp_path / "down.jsonl"
    with RecordingProxy(f"http://127.0.0.1:{closed_port}/v1", cassette) as proxy:
        response = httpx.post(
            f"{proxy.base_url}/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}]},
            timeout=15,
        )
        assert response.status_code == 502
        assert response.json()["error"]["type"] == "upstream_unreachable"
    exchange = load_cassette(cassette).exchanges[0]
    assert exchange.status == 502
    assert exchange.request["messages"][0]["content"] == "hi"


def test_concurrent_requests_are_each_recorded_on_their_own_line(tmp_path):
    cassette = tmp_path / "many.jsonl"
    questions = [f"question number {i} about asyncio" for i in range(8)]
    with (
        OpenAIServer(delay_seconds=0.05) as upstream,
        RecordingProxy(upstream.base_url, cassette) as proxy,
    ):
        model = _model(proxy.base_url)
        with ThreadPoolExecutor(max_workers=8) as pool:
            replies = list(pool.map(model.invoke, questions))
        assert len(replies) == 8
        models = httpx.get(f"{proxy.base_url}/models").json()
        assert models["data"][0]["id"] == "offline"
        assert httpx.get(f"http://127.0.0.1:{proxy.port}/elsewhere").status_code == 404
    lines = cassette.read_text().splitlines()
    assert len(lines) == 9  # the header and one line per chat completion, not /models
    asked = {json.loads(line)["request"]["messages"][0]["content"] for line in lines[1:]}
    assert asked == set(questions)


def test_sse_parser_handles_split_events():
    parser = SSEParser()
    stream = b'data: {"a": 1}\r\n\r\ndata: {"b":\ndata: 2}\n\n: comment\n\ndata: [DONE]\n\n'
    for i in range(0, len(stream), 3):
        parser.feed(stream[i : i + 3])
    parser.close()
    assert parser.payloads == [{"a": 1}, {"b": 2}]


# ---- an upstream that counts concurrent requests, or cuts its stream short ------------------


class _CountingHandler(BaseHTTPRequestHandler):
    server: _CountingServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        return

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            self.server.active += 1
            self.server.peak = max(self.server.peak, self.server.active)
        time.sleep(0.1)
        with self.server.lock:
            self.server.active -= 1
        if self.server.truncate:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            event = b'data: {"choices": [{"index": 0, "delta": {"content": "partial"}}]}\n\n'
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
            self.close_connection = True  # no terminating chunk: the stream breaks off
            return
        data = json.dumps({"choices": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _CountingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, truncate=False):
        super().__init__(("127.0.0.1", 0), _CountingHandler)
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.truncate = truncate

    def serve_forever(self, poll_interval=0.05):
        super().serve_forever(poll_interval)


def _post_many(url: str, count: int) -> list[int]:
    def post(i):
        body = {"messages": [{"role": "user", "content": f"q{i}"}]}
        return httpx.post(f"{url}/chat/completions", json=body, timeout=15).status_code

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(post, range(count)))


@pytest.mark.parametrize(("limit", "serialized"), [(1, True), (None, False)])
def test_upstream_concurrency_can_be_limited(tmp_path, limit, serialized):
    counting = _CountingServer()
    with (
        BackgroundServer(counting) as upstream,
        RecordingProxy(
            f"{upstream.base_url}/v1", tmp_path / "c.jsonl", max_concurrent_upstream=limit
        ) as proxy,
    ):
        assert _post_many(proxy.base_url, 4) == [200] * 4
        # An exchange is appended once its answer is sent, so the last may trail the reply.
        deadline = time.monotonic() + 5
        while proxy.recorded < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert proxy.recorded == 4
    assert (counting.peak == 1) is serialized
    if serialized:  # elapsed time counts from when a request went upstream, not its wait
        assert max(e.elapsed_seconds for e in load_cassette(tmp_path / "c.jsonl")) < 0.35


def test_a_stream_cut_short_is_recorded_as_far_as_it_went(tmp_path):
    cassette = tmp_path / "cut.jsonl"
    with (
        BackgroundServer(_CountingServer(truncate=True)) as upstream,
        RecordingProxy(f"{upstream.base_url}/v1", cassette) as proxy,
    ):
        body = {"stream": True, "messages": [{"role": "user", "content": "hi"}]}
        with httpx.stream("POST", f"{proxy.base_url}/chat/completions", json=body) as resp:
            received = [line for line in resp.iter_lines() if line.startswith("data:")]
    assert len(received) == 1 and "partial" in received[0]
    exchange = load_cassette(cassette).exchanges[0]
    assert exchange.stream == [{"choices": [{"index": 0, "delta": {"content": "partial"}}]}]
    assert exchange.error.startswith("upstream broke off")
