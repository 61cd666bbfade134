"""OpenTelemetry spans of a session, caught with the SDK's in-memory exporter."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from engine.commands.run import EXIT_OK, run_headless
from engine.run.tracing import use_tracer_provider
from tests.fixtures.servers import local_settings
from tests.helpers.sample_index import seed_sample_index
from tests.unit.engine.test_headless import parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"
QUESTION = "What is the default maxsize of asyncio.Queue?"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    try:
        yield exporter
    finally:
        use_tracer_provider(None)


async def run_quick(tmp_path: Path, **extra: str) -> None:
    settings = local_settings(tmp_path, DOCS, **extra)
    code = await run_headless(
        settings, parse(QUESTION, "--mode", "quick"), stderr=io.StringIO(), stdout=io.StringIO()
    )
    assert code == EXIT_OK


async def test_a_session_is_one_trace_of_nodes_tools_and_model_calls(
    tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    await run_quick(tmp_path)
    finished = spans.get_finished_spans()
    by_name = {span.name: span for span in finished}
    session = by_name["session"]
    assert session.parent is None and session.attributes["deepresearch.status"] == "ended"
    assert {span.context.trace_id for span in finished} == {session.context.trace_id}
    assert {"node route_question", "node quick_research", "node verify_citations"} <= set(by_name)
    tools = [span for span in finished if span.name.startswith("tool ")]
    models = [span for span in finished if span.name.startswith("model ")]
    # The engine's own search, before the model answers from its passages.
    assert "tool search_web" in {span.name for span in tools}
    assert models and all(span.attributes["gen_ai.usage.input_tokens"] > 0 for span in models)
    ids = {span.context.span_id: span for span in finished}
    for span in tools + models:  # each hangs under a graph node, under the session
        parent = ids[span.parent.span_id]
        while parent.name != "session":
            parent = ids[parent.parent.span_id]
    # What was asked stays out of traces unless TRACE_PROMPTS says otherwise.
    assert all(QUESTION not in str(dict(span.attributes or {})) for span in finished)


async def test_prompts_are_traced_only_when_asked(
    tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    await run_quick(tmp_path, TRACE_PROMPTS="true")
    finished = spans.get_finished_spans()
    session = next(span for span in finished if span.name == "session")
    assert session.attributes["deepresearch.question"] == QUESTION
    assert any("deepresearch.prompt" in (span.attributes or {}) for span in finished)


def test_without_an_endpoint_no_exporter_is_imported_and_no_span_made(tmp_path: Path) -> None:
    # (LangSmith, a LangChain dependency, imports the OpenTelemetry SDK on its own when it is
    # installed; what tracing adds is the exporter, the provider and the spans.)
    code = f"""
import asyncio, io, sys
from engine.commands.run import run_headless
from tests.fixtures.servers import local_settings
from tests.unit.engine.test_headless import parse
settings = local_settings({str(tmp_path)!r}, {str(DOCS)!r})
args = parse({QUESTION!r}, "--mode", "quick")
assert asyncio.run(run_headless(settings, args, stderr=io.StringIO(), stdout=io.StringIO())) == 0
import engine.run.tracing as tracing
print(sorted(name for name in sys.modules if name.startswith("opentelemetry.exporter")))
print(tracing._configured)
"""
    seed_sample_index(tmp_path)
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == ["[]", "None"]


def test_with_an_endpoint_spans_reach_the_collector_over_otlp_http(tmp_path: Path) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    received: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append((self.path, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    import asyncio

    import engine.run.tracing as tracing

    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        asyncio.run(run_quick(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint))
        assert tracing._configured is not None
        tracing._configured.force_flush()
    finally:
        if tracing._configured is not None:
            tracing._configured.shutdown()
        tracing._configured = None
        server.shutdown()
    assert received and {path for path, _ in received} == {"/v1/traces"}
    names = set()
    for _, body in received:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                names |= {span.name for span in scope.spans}
    assert "session" in names and "tool search_web" in names
