"""The HTTP API's contract, read without running research: one error shape, every error
status in the OpenAPI description, the bearer token as a security scheme, no server paths
handed out, and the command line's question check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.api.app import create_app
from engine.config import Settings
from engine.sessions import record_session
from tests.fixtures.servers import local_settings

DOCS = Path(__file__).resolve().parents[3] / "docs" / "samples"
SESSION = "20260101-000000-abcdef"
LOCAL = "http://127.0.0.1"


def _settings(tmp_path: Path, **extra: str) -> Settings:
    return local_settings(tmp_path, DOCS, **extra)


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    # No lifespan (no `with`): the routes read here need no engine process.
    return TestClient(create_app(_settings(tmp_path), engine_processes=1), base_url=LOCAL)


def _is_error_body(response: Any) -> bool:
    body = response.json()
    return isinstance(body, dict) and isinstance(body.get("error"), str) and "detail" not in body


def test_every_error_has_the_one_shape(client: TestClient) -> None:
    failures = {
        "unknown route": client.get("/v1/nothing-here"),
        "wrong method": client.delete("/v1/sessions"),
        "unknown session": client.get(f"/v1/sessions/{SESSION}"),
        "bad body": client.post("/v1/research", json={"question": 3}),
        "body too large": client.post("/v1/research", content=b"x" * 70_000),
        "foreign host": client.get("/healthz", headers={"host": "evil.example"}),
    }
    statuses = {name: response.status_code for name, response in failures.items()}
    assert statuses == {
        "unknown route": 404,
        "wrong method": 405,
        "unknown session": 404,
        "bad body": 422,
        "body too large": 413,
        "foreign host": 400,
    }
    for name, response in failures.items():
        assert response.headers["content-type"].startswith("application/json"), name
        assert _is_error_body(response), (name, response.text)
    assert failures["bad body"].json()["fields"][0]["field"] == "body.question"


@pytest.mark.parametrize("question", ["\x1b[2J\u202e", "\x9b31m\x9d0;t\x9c", "\x07\x00 \t"])
def test_a_question_of_control_characters_is_refused_as_the_command_line_refuses_it(
    client: TestClient, question: str
) -> None:
    for route in ("/v1/research", "/v1/research/sync", f"/v1/sessions/{SESSION}/questions"):
        response = client.post(route, json={"question": question})
        assert response.status_code == 422, route
        assert response.json()["fields"][0]["field"] == "body.question"
    answer = client.post(f"/v1/sessions/{SESSION}/clarification", json={"answer": question})
    assert answer.status_code == 422


def test_the_openapi_description_has_every_error_and_a_bearer_scheme(
    client: TestClient,
) -> None:
    spec = client.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    error_ref = "#/components/schemas/ErrorBody"
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            parameters = [p["name"].lower() for p in operation.get("parameters", [])]
            assert "authorization" not in parameters, (path, method)
            responses = operation["responses"]
            for status in ("400", "413", "422"):
                schema = responses[status]["content"]["application/json"]["schema"]
                assert schema["$ref"] == error_ref, (path, method, status)
            if "{session_id}" in path and method == "post" and not path.endswith("/cancel"):
                assert {"404", "409"} <= set(responses), (path, method)
    assert "404" in spec["paths"]["/v1/sessions/{session_id}/report"]["get"]["responses"]


def test_a_wrong_token_is_refused_in_the_one_shape(tmp_path: Path) -> None:
    guarded = create_app(_settings(tmp_path, API_TOKEN="s3cret-token-value"), engine_processes=1)
    client = TestClient(guarded, base_url=LOCAL)
    refused = client.get("/v1/sessions", headers={"Authorization": "Bearer wrong"})
    assert refused.status_code == 401 and _is_error_body(refused)
    assert client.get("/v1/sessions").status_code == 401
    allowed = client.get("/v1/sessions", headers={"Authorization": "Bearer s3cret-token-value"})
    assert allowed.status_code == 200
    spec = guarded.openapi()
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_no_reply_names_a_path_on_the_server(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    settings.reports_dir.mkdir(parents=True, exist_ok=True)
    report = settings.reports_dir / f"{SESSION}.md"
    report.write_text("# Answer\n\nText.\n", encoding="utf-8")
    report.with_suffix(".audit.json").write_text("{}", encoding="utf-8")
    record_session(
        settings, SESSION, status="completed", question="q", mode="quick", report_path=str(report)
    )
    client = TestClient(create_app(settings, engine_processes=1), base_url=LOCAL)
    replies = [
        client.get("/v1/sessions").text,
        client.get(f"/v1/sessions/{SESSION}/report").text,
    ]
    served = client.get(f"/v1/sessions/{SESSION}/report").json()
    assert served["report_path"] == f"{SESSION}.md"
    assert served["audit_path"] == f"{SESSION}.audit.json"
    for reply in replies:
        assert str(tmp_path) not in reply
