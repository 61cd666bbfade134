"""`deepresearch serve`'s API on a real uvicorn server, read by a real HTTP/SSE client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from engine.commands.serve import is_loopback, serve
from engine.config import Settings
from engine.markdown_file import markdown_file_text
from tests.fixtures.servers import local_settings
from tests.helpers.api_server import api_server

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUICK = {"question": "What is the default maxsize of asyncio.Queue?", "mode": "quick"}
DEEP = {"question": "How do asyncio queues and locks coordinate tasks?", "mode": "deep"}


def settings_for(data_dir: Path, **extra: str) -> Settings:
    return local_settings(data_dir, DOCS, **extra)


def sse(response: httpx.Response) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(id, event name, data) of each Server-Sent Event of a streaming response."""
    fields: dict[str, str] = {}
    for line in response.iter_lines():
        if line.startswith(":"):
            continue
        if not line:
            if fields:
                yield int(fields["id"]), fields["event"], json.loads(fields["data"])
            fields = {}
            continue
        name, _, value = line.partition(": ")
        fields[name] = value


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    with api_server(settings_for(tmp_path)) as url:
        yield url


def test_a_quick_session_streams_its_typed_events_and_leaves_its_report(base: str) -> None:
    assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
    with httpx.stream("POST", f"{base}/v1/research", json=QUICK, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        session_id = response.headers["x-session-id"]
        events = list(sse(response))
    ids = [number for number, _, _ in events]
    assert ids == list(range(1, len(ids) + 1))
    assert all(name == data["type"] for _, name, data in events)
    assert events[0][1] == "session_started" and events[0][2]["session_id"] == session_id
    assert events[-1][1] == "run_finished"
    report = httpx.get(f"{base}/v1/sessions/{session_id}/report").json()
    assert report["type"] == "report_ready" and report["kept_citations"]
    listed = httpx.get(f"{base}/v1/sessions").json()
    assert [s["session_id"] for s in listed] == [session_id]
    assert httpx.get(f"{base}/v1/sessions/{session_id}").json()["stage"] == "finished"


def test_a_plan_is_reviewed_over_rest_and_a_reconnect_misses_nothing(
    base: str, tmp_path: Path
) -> None:
    with httpx.stream("POST", f"{base}/v1/research", json=DEEP, timeout=60) as response:
        session_id = response.headers["x-session-id"]
        first = list(sse(response))
    # Without auto_approve the stream ends where the session waits for its plan review.
    assert first[-1][1] == "plan_proposed"
    reviewed = httpx.post(
        f"{base}/v1/sessions/{session_id}/plan", json={"action": "approve"}, timeout=30
    )
    assert reviewed.status_code == 202
    assert reviewed.json()["events"] == f"/v1/sessions/{session_id}/events"
    # Read a few events, drop the connection, come back with the last id seen.
    seen: list[tuple[int, str, dict[str, Any]]] = []
    headers = {"Last-Event-ID": str(first[-1][0])}
    url = f"{base}/v1/sessions/{session_id}/events"
    with httpx.stream("GET", url, headers=headers, timeout=60) as response:
        for event in sse(response):
            seen.append(event)
            if len(seen) == 3:
                break
    headers = {"Last-Event-ID": str(seen[-1][0])}
    with httpx.stream("GET", url, headers=headers, timeout=120) as response:
        seen += list(sse(response))
    everything = first + seen
    ids = [number for number, _, _ in everything]
    assert ids == list(range(1, len(ids) + 1))  # none missing, none twice
    assert everything[-1][1] == "run_finished" and everything[-1][2]["status"] == "completed"
    assert "report_ready" in [name for _, name, _ in seen]
    # The API names the report file, not where it sits on the server.
    named = httpx.get(f"{base}/v1/sessions").json()[0]["report_path"]
    stored = (settings_for(tmp_path).reports_dir / named).read_text()
    served = httpx.get(f"{base}/v1/sessions/{session_id}/report").json()["report"]
    # The file is the report as Markdown a viewer shows paragraph by paragraph.
    assert stored.strip() == markdown_file_text(served).strip()


def test_sync_returns_the_report_with_citations_and_usage(base: str) -> None:
    reply = httpx.post(f"{base}/v1/research/sync", json=DEEP, timeout=120)
    assert reply.status_code == 200
    body = reply.json()
    assert body["status"] == "completed"
    assert body["report"]["kept_citations"] and "## Sources" in body["report"]["report"]
    assert body["usage"]["input_tokens"] > 0 and body["usage"]["output_tokens"] > 0


def test_bad_requests_name_the_field_and_never_echo_it(base: str) -> None:
    reply = httpx.post(
        f"{base}/v1/research", json={"question": "", "mode": "sk-secret-mode", "x": 1}
    )
    assert reply.status_code == 422
    fields = {f["field"] for f in reply.json()["fields"]}
    assert fields == {"body.question", "body.mode", "body.x"}
    assert "sk-secret-mode" not in reply.text
    huge = {"question": "q" * 70_000}
    assert httpx.post(f"{base}/v1/research", json=huge).status_code == 413
    assert httpx.get(f"{base}/v1/sessions/nope/report").status_code == 404
    assert httpx.get(f"{base}/v1/sessions/..%2Fetc/report").status_code in (404, 422)
    missing = httpx.post(f"{base}/v1/sessions/no-such/plan", json={"action": "approve"})
    assert missing.status_code == 404 and "no saved session" in missing.json()["error"]
    revise = httpx.post(f"{base}/v1/sessions/no-such/plan", json={"action": "revise"})
    assert revise.status_code == 422 and "feedback" in revise.json()["error"]


def test_with_a_token_every_route_but_healthz_needs_it(tmp_path: Path) -> None:
    with api_server(settings_for(tmp_path, API_TOKEN="s3cret-token")) as base:
        assert httpx.get(f"{base}/healthz").status_code == 200
        assert httpx.get(f"{base}/v1/sessions").status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert httpx.get(f"{base}/v1/sessions", headers=wrong).status_code == 401
        right = {"Authorization": "Bearer s3cret-token"}
        assert httpx.get(f"{base}/v1/sessions", headers=right).status_code == 200


def test_serving_beyond_loopback_needs_a_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.delenv("API_TOKEN", raising=False)
    args = type("Args", (), {"host": "0.0.0.0", "port": 8000})()
    assert serve(args) == 2  # type: ignore[arg-type]
    assert "refusing to serve on 0.0.0.0 without API_TOKEN" in capsys.readouterr().err
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")


def test_a_session_started_on_one_worker_continues_on_another(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    with api_server(settings) as worker_a, api_server(settings) as worker_b:
        with httpx.stream("POST", f"{worker_a}/v1/research", json=DEEP, timeout=60) as response:
            session_id = response.headers["x-session-id"]
            first = list(sse(response))
        assert first[-1][1] == "plan_proposed"
        approved = httpx.post(
            f"{worker_b}/v1/sessions/{session_id}/plan", json={"action": "approve"}, timeout=30
        )
        assert approved.status_code == 202
        url = f"{worker_b}/v1/sessions/{session_id}/events"
        with httpx.stream("GET", url, timeout=120) as response:
            everything = list(sse(response))
        assert [number for number, _, _ in everything][: len(first)] == [n for n, _, _ in first]
        assert everything[-1][1] == "run_finished"
        report = httpx.get(f"{worker_a}/v1/sessions/{session_id}/report").json()
        assert report["kept_citations"]


def test_without_a_token_only_this_machine_may_call(base: str) -> None:
    # A DNS name rebound to 127.0.0.1 by a web page carries its own Host header.
    rebound = httpx.get(f"{base}/v1/sessions", headers={"Host": "evil.example:8000"})
    assert rebound.status_code == 400
    assert httpx.get(f"{base}/v1/sessions", headers={"Host": "localhost"}).status_code == 200


def test_a_token_guards_the_docs_and_odd_headers_get_401(tmp_path: Path) -> None:
    with api_server(settings_for(tmp_path, API_TOKEN="s3cret-token")) as base:
        for path in ("/docs", "/openapi.json", "/redoc"):
            assert httpx.get(f"{base}{path}").status_code in (401, 404), path
        odd = {"Authorization": "Bearer café".encode()}
        reply = httpx.get(f"{base}/v1/sessions", headers=odd)
        assert reply.status_code == 401 and reply.headers["www-authenticate"] == "Bearer"


def test_a_streamed_oversized_body_is_413_and_a_blank_question_422(base: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(80):
            yield b"q" * 1024
        yield b'"}'

    reply = httpx.post(
        f"{base}/v1/research", content=chunks(), headers={"content-type": "application/json"}
    )
    assert reply.status_code == 413 and "over" in reply.json()["error"]
    blank = httpx.post(f"{base}/v1/research", json={"question": "   "})
    assert blank.status_code == 422
    assert blank.json()["fields"][0]["field"] == "body.question"


def test_sync_counts_every_calls_tokens_and_keeps_claim_support(tmp_path: Path) -> None:
    # The offline model priced, so the cost adds up too.
    with api_server(settings_for(tmp_path, MODEL_PRICES="offline-extractive=1000/3000")) as base:
        body = httpx.post(f"{base}/v1/research/sync", json=DEEP, timeout=120).json()
        report = httpx.get(f"{base}/v1/sessions/{body['session_id']}/report").json()
    logged = [
        json.loads(line)
        for line in (tmp_path / "session-events" / f"{body['session_id']}.jsonl")
        .read_text()
        .splitlines()
    ]
    calls = [event for event in logged if event["type"] == "usage_updated"]
    assert body["usage"]["input_tokens"] == sum(c["input_tokens"] for c in calls)
    assert body["usage"]["output_tokens"] == sum(c["output_tokens"] for c in calls)
    assert body["usage"]["cost_usd"] > 0
    assert body["usage"]["cost_usd"] == round(sum(c["cost_usd"] for c in calls), 6)
    announced = next(e for e in reversed(logged) if e["type"] == "report_ready")
    assert announced["claims"] and report["claims"] == announced["claims"]
    assert report["grounding"] == announced["grounding"] == "strict"
