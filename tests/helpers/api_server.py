"""A real uvicorn server of `engine.api.app` on an ephemeral 127.0.0.1 port, in a thread."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from engine.api.app import create_app
from engine.config import Settings


@contextmanager
def api_server(settings: Settings, *, engine_processes: int = 1) -> Iterator[str]:
    """The base URL of a running server; stopped (its runs cancelled) on exit.

    One engine process unless asked: each imports the whole engine as it starts, and a test of
    the API needs no more than one to run its sessions.
    """
    app = create_app(settings, engine_processes=engine_processes)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    # Generous: it waits for the engine process to import the engine, slow on a loaded machine.
    deadline = time.monotonic() + 90
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
