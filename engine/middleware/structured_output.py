"""Structured output that fails validation gets one more try, with the error shown to the model.

Before giving up on a reply, a mangled tool name (`clarify_with_user` for `ClarifyWithUser`)
is repaired with the same logic as every other tool call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from engine.middleware.empty_content import fill_empty_tool_messages
from engine.middleware.retry import RetryPolicy, acall_with_retries
from engine.middleware.tool_names import resolve_tool_name
from engine.model_task import ModelTask, task_config
from engine.models.compat.chat import STRUCTURED_ARGS

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class StructuredOutputError(RuntimeError):
    """The model did not produce a valid reply for the schema, even after a corrected retry.

    `safe_message` names the role, the endpoint and what was asked for: it is what the person
    sees, so it holds no key and no provider text beyond the validation error's field names.
    """

    def __init__(self, message: str, safe_message: str) -> None:
        super().__init__(message)
        self.safe_message = safe_message


def _who(model: BaseChatModel) -> str:
    """ "the planner model at 127.0.0.1:8081", as far as the model says who it is."""
    role = getattr(model, "role", None)
    transport = getattr(getattr(model, "endpoint", None), "transport", None)
    endpoint = getattr(transport, "endpoint", None)
    who = f"the {role} model" if isinstance(role, str) else "the model"
    return f"{who} at {endpoint}" if isinstance(endpoint, str) else who


def _repaired(
    raw: Any, schema: type[SchemaT], repair: Callable[[dict[str, Any]], dict[str, Any]] | None
) -> SchemaT | None:
    """The reply's arguments, repaired and validated, when a repair is known for the schema."""
    if repair is None or not isinstance(raw, AIMessage):
        return None
    args = raw.response_metadata.get(STRUCTURED_ARGS)
    if not isinstance(args, dict):
        args = next((call["args"] for call in raw.tool_calls), None)
    if not isinstance(args, dict):
        return None
    try:
        return schema.model_validate(repair(args))
    except ValidationError:
        return None


def _salvage(raw: Any, schema: type[SchemaT]) -> tuple[SchemaT | None, str]:
    """Validate the raw reply's tool call (repairing its name); the error text when it fails."""
    if not isinstance(raw, AIMessage) or not raw.tool_calls:
        return None, f"the reply did not call {schema.__name__}"
    for call in raw.tool_calls:
        if resolve_tool_name(call["name"], [schema.__name__]) == schema.__name__:
            try:
                return schema.model_validate(call["args"]), ""
            except ValidationError as exc:
                return None, _short_error(exc)
    return None, f"the reply called {raw.tool_calls[0]['name']!r} instead of {schema.__name__}"


def _short_error(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error.get("loc", ())) or "reply"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


async def invoke_structured(
    model: BaseChatModel,
    schema: type[SchemaT],
    messages: Sequence[BaseMessage],
    *,
    policy: RetryPolicy,
    repair: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    from_text: Callable[[str], SchemaT | None] | None = None,
    task: ModelTask | None = None,
) -> SchemaT:
    """Ask `model` for a `schema` instance; retry once showing the validation error.

    `repair` fixes a reply that fails validation in a known, harmless way before it counts
    as a failure. `from_text` reads the last reply's prose as the answer when no attempt gave
    JSON at all (a small model asked for a one-field object often just writes the field).
    """
    last_text = ""
    structured = model.with_structured_output(schema, include_raw=True)
    config = task_config(task) if task is not None else None
    conversation = fill_empty_tool_messages(list(messages))
    error = ""
    for attempt in range(2):
        if attempt:
            conversation = [
                *conversation,
                HumanMessage(
                    content=f"Your previous reply was not valid for {schema.__name__}: {error}. "
                    f"Reply again by calling {schema.__name__} with arguments that satisfy "
                    "its schema."
                ),
            ]
        prompt = conversation

        async def call(prompt: list[BaseMessage] = prompt) -> Any:
            return await structured.ainvoke(prompt, config=config)

        result = await acall_with_retries(call, policy)
        parsed = result.get("parsed") if isinstance(result, dict) else result
        if isinstance(parsed, schema):
            return parsed
        raw = result.get("raw") if isinstance(result, dict) else None
        if isinstance(raw, AIMessage) and raw.text.strip():
            last_text = raw.text.strip()
        salvaged, error = _salvage(raw, schema)
        if salvaged is not None:
            return salvaged
        fixed = _repaired(raw, schema, repair)
        if fixed is not None:
            return fixed
        parsing_error = result.get("parsing_error") if isinstance(result, dict) else None
        if isinstance(parsing_error, ValidationError):
            error = _short_error(parsing_error)
    read = from_text(last_text) if from_text is not None and last_text else None
    if read is not None:
        return read
    raise StructuredOutputError(
        f"the model gave no valid {schema.__name__} reply ({error})",
        f"{_who(model)} gave no valid {schema.__name__} in two attempts ({error[:200]}); "
        "resume the session to try again, or use a larger model",
    )
