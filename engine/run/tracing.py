"""OpenTelemetry spans for a session: a `session` span per leg of its run (to a pause or the
end; it carries the session id, so a session's legs are found together), and under it each
graph node, researcher, tool call and model call (model name, tokens, duration).

Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (spans go to its `/v1/traces` over OTLP/HTTP;
the exporter's other OTEL_EXPORTER_OTLP_* variables in the process environment, such as
headers, apply) or a tracer
provider is installed by the embedding program (`use_tracer_provider`, which tests use with the
SDK's in-memory exporter). When off, nothing of OpenTelemetry is imported and no callback is
added: tracing costs nothing. Prompts, questions and tool arguments are recorded only with
TRACE_PROMPTS=true; by default a span says what ran and how long, not what was said.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from engine.config import Settings
from engine.model_usage import tokens_used

_MAX_ATTRIBUTE_CHARS = 2_000
_installed: Any = None  # a TracerProvider the embedding program chose
_configured: Any = None  # the provider built from OTEL_EXPORTER_OTLP_ENDPOINT, once
_lock = threading.Lock()


def use_tracer_provider(provider: Any) -> None:
    """Trace sessions into `provider` (None: back to the environment's choice)."""
    global _installed
    _installed = provider


def _provider(settings: Settings) -> Any:
    global _configured
    if _installed is not None:
        return _installed
    endpoint = settings.otel_exporter_otlp_endpoint
    if not endpoint:
        return None
    with _lock:
        if _configured is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            provider = TracerProvider(resource=Resource.create({"service.name": "deepresearch"}))
            exporter = OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces")
            provider.add_span_processor(BatchSpanProcessor(exporter))
            _configured = provider
        return _configured


def session_tracer(settings: Settings, session_id: str, question: str) -> SessionTrace | None:
    """The trace of one leg of a session, or None when tracing is off."""
    provider = _provider(settings)
    if provider is None:
        return None
    return SessionTrace(provider.get_tracer("deepresearch"), settings, session_id, question)


def _clip(text: Any) -> str:
    value = str(text)
    return value if len(value) <= _MAX_ATTRIBUTE_CHARS else value[:_MAX_ATTRIBUTE_CHARS] + "…"


class SessionTrace(BaseCallbackHandler):
    """A `session` span, with the graph's runs as child spans, built from LangChain callbacks.

    Graph nodes, the researcher agent, tools and model calls get spans; the many internal
    runnables between them do not, and a span's parent is its nearest traced ancestor.
    """

    run_inline = True

    def __init__(self, tracer: Any, settings: Settings, session_id: str, question: str) -> None:
        from opentelemetry import trace

        self._trace = trace
        self._tracer = tracer
        self._prompts = settings.trace_prompts
        self._spans: dict[Any, Any] = {}  # run id -> the span this trace started for it
        self._parents: dict[Any, Any] = {}  # run id -> parent run id, for untraced runs too
        attributes: dict[str, Any] = {"deepresearch.session_id": session_id}
        if self._prompts:
            attributes["deepresearch.question"] = _clip(question)
        self.session = tracer.start_span("session", attributes=attributes)

    def _parent_span(self, parent_run_id: Any) -> Any:
        run = parent_run_id
        while run is not None:
            if run in self._spans:
                return self._spans[run]
            run = self._parents.get(run)
        return self.session

    def _start(self, name: str, run_id: Any, parent_run_id: Any, **attributes: Any) -> None:
        context = self._trace.set_span_in_context(self._parent_span(parent_run_id))
        span = self._tracer.start_span(name, context=context)
        for key, value in attributes.items():
            if value is not None:
                span.set_attribute(key, value)
        self._spans[run_id] = span

    def _end(self, run_id: Any, error: BaseException | None = None) -> None:
        self._parents.pop(run_id, None)
        span = self._spans.pop(run_id, None)
        if span is None:
            return
        if error is not None:
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, type(error).__name__))
        span.end()

    def finish(self, status: str) -> None:
        """End every span still open (a cancelled or failed leg) and the session's."""
        for run_id in list(self._spans):
            self._end(run_id)
        self.session.set_attribute("deepresearch.status", status)
        self.session.end()

    # ---- graph nodes and the researcher agent -----------------------------------------

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any
    ) -> None:
        self._parents[run_id] = parent_run_id
        name = kw.get("name") or ""
        node = (kw.get("metadata") or {}).get("langgraph_node")
        if name == "researcher":
            self._start("researcher", run_id, parent_run_id)
        elif name and name == node:
            self._start(f"node {name}", run_id, parent_run_id, **{"deepresearch.node": name})

    def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
        self._end(run_id, error)

    # ---- tools ----------------------------------------------------------------------

    def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: Any, parent_run_id: Any = None, **kw: Any
    ) -> None:
        name = (serialized or {}).get("name") or kw.get("name") or "tool"
        arguments = _clip(input_str) if self._prompts else None
        attributes = {"deepresearch.tool": name, "deepresearch.tool.arguments": arguments}
        self._start(f"tool {name}", run_id, parent_run_id, **attributes)

    def on_tool_end(self, output: Any, *, run_id: Any, **kw: Any) -> None:
        self._end(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
        self._end(run_id, error)

    # ---- model calls ------------------------------------------------------------------

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any
    ) -> None:
        params = kw.get("invocation_params") or {}
        model = params.get("model") or params.get("model_name") or "model"
        prompt = _clip(messages) if self._prompts else None
        attributes = {"gen_ai.request.model": str(model), "deepresearch.prompt": prompt}
        self._start(f"model {model}", run_id, parent_run_id, **attributes)

    def on_llm_end(self, response: LLMResult, *, run_id: Any, **kw: Any) -> None:
        span = self._spans.get(run_id)
        if span is not None:
            spent_in, spent_out = tokens_used(response)
            span.set_attribute("gen_ai.usage.input_tokens", spent_in)
            span.set_attribute("gen_ai.usage.output_tokens", spent_out)
        self._end(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
        self._end(run_id, error)
