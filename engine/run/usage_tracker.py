"""UsageTracker: every model call of a run, counted by graph role into the session's meter.

A LangChain callback handler the runner attaches to each leg. The role comes from the node (or
subgraph) that made the call; each answered call becomes a `UsageUpdated` event with the
session's totals and caps, queued until the runner drains it into the event stream.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from engine.budget import Caps, Meter
from engine.events import UsageUpdated
from engine.model_usage import answering_model, tokens_used

# The role of each main-graph node that calls a model; inside a research unit or the quick
# path, every call is the researcher's.
_ROLE_BY_NODE = {
    "route_question": "orchestrator",
    "clarify": "orchestrator",
    "write_brief": "orchestrator",
    "draft_plan": "planner",
    "supervisor": "orchestrator",
    "final_report": "writer",
}


class UsageTracker(BaseCallbackHandler):
    """Counts every model call of the run by graph role into the session's meter."""

    run_inline = True

    def __init__(self, meter: Meter | None = None) -> None:
        self.meter = meter or Meter(Caps(), lambda _model: (0.0, 0.0))
        self.roles: dict[Any, tuple[str, str]] = {}
        self.pending: list[UsageUpdated] = []

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: Any, **kw: Any
    ) -> None:
        metadata = kw.get("metadata") or {}
        namespace = str(metadata.get("langgraph_checkpoint_ns", ""))
        node = str(metadata.get("langgraph_node", ""))
        if "research_unit" in namespace or "quick_research" in namespace:
            role = "researcher"
        else:
            role = _ROLE_BY_NODE.get(node, "researcher" if node == "model" else "orchestrator")
        params = kw.get("invocation_params") or {}
        model = params.get("model_name") or metadata.get("ls_model_name") or ""
        self.roles[run_id] = (role, str(model))
        self.meter.in_flight += 1

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
        if self.roles.pop(run_id, None) is not None:
            self.meter.in_flight -= 1

    def on_llm_end(self, response: LLMResult, *, run_id: Any, **kw: Any) -> None:
        role, model = self.roles.pop(run_id, ("", ""))
        if role:
            self.meter.in_flight -= 1
        spent_in, spent_out = tokens_used(response)
        if not (spent_in or spent_out):
            return
        # A fallback model that answered is priced as itself.
        model = answering_model(response) or model
        cost = self.meter.record(role, model, spent_in, spent_out)
        spent, caps = self.meter.spent, self.meter.caps
        self.pending.append(
            UsageUpdated(
                role=role,
                model=model,
                input_tokens=spent_in,
                output_tokens=spent_out,
                cost_usd=round(cost, 6),
                total_input_tokens=spent.input_tokens,
                total_output_tokens=spent.output_tokens,
                total_cost_usd=round(spent.cost_usd, 6),
                budget_tokens=caps.tokens,
                budget_usd=caps.usd,
            )
        )

    def drain(self) -> list[UsageUpdated]:
        drained, self.pending = self.pending, []
        return drained
