"""Keep LangSmith's per-middleware bookkeeping on the event loop when nothing is traced.

LangChain's agent factory wraps every middleware hook in `langsmith.traceable`, whose async
wrapper hands its setup and teardown to a worker thread: about twenty thread round trips per
researcher model call, even with tracing off. LangSmith's supported runtime override runs that
bookkeeping inline instead; when tracing is on, the default (threaded) path is kept, and an
override someone else installed is never replaced.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any


async def _inline_unless_tracing(
    default: Callable[..., Awaitable[Any]],
    ctx: contextvars.Context,
    func: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> Any:
    from langsmith.utils import tracing_is_enabled

    if tracing_is_enabled():
        return await default(ctx, func, *args, **kwargs)
    return ctx.run(func, *args, **kwargs)


def install_inline_trace_setup() -> bool:
    """Install the override once per process; False when another override is in place."""
    from langsmith._runtime_overrides import get_runtime_overrides, set_runtime_overrides

    current = get_runtime_overrides().aio_to_thread
    if current is _inline_unless_tracing:
        return True
    if current is not None:
        return False
    set_runtime_overrides(aio_to_thread=_inline_unless_tracing)
    return True
