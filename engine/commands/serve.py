"""`deepresearch serve`: the HTTP API (REST + Server-Sent Events) on one worker.

Bound to a loopback address it needs no token; bound to anything else it refuses to start
unless API_TOKEN is set, and then every route but /healthz asks for it as a bearer token.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from typing import Any

from engine.config import load_settings

DEFAULT_PORT = 8000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the research API over HTTP (REST + Server-Sent Events)",
        description="Serve sessions over HTTP: POST /v1/research streams a session's events, "
        "/v1/research/sync returns its report, /v1/sessions/... reviews, resumes and reads "
        "them. OpenAPI at /docs. Beyond loopback, API_TOKEN must be set.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to bind ({DEFAULT_PORT})"
    )
    parser.set_defaults(handler=serve)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name could resolve anywhere


def checkpoint_store_problem(settings: Any) -> str | None:
    """Why the configured checkpoint store cannot be opened, or None (checked before serving,
    so a bad CHECKPOINT_URL is one line, not a traceback from inside the server)."""
    from engine.store import session_store

    return session_store(settings).opening_problem()


def serve(args: argparse.Namespace) -> int:
    settings = load_settings()
    if not is_loopback(args.host) and settings.api_token is None:
        print(
            f"deepresearch serve: refusing to serve on {args.host} without API_TOKEN: set "
            "API_TOKEN to a secret clients send as 'Authorization: Bearer ...', or bind "
            "127.0.0.1",
            file=sys.stderr,
        )
        return 2
    if not 0 < args.port < 65536:
        print(f"deepresearch serve: --port {args.port} is not a port (1-65535)", file=sys.stderr)
        return 2
    problem = checkpoint_store_problem(settings)
    if problem:
        print(f"deepresearch serve: {problem}", file=sys.stderr)
        return 2
    import uvicorn

    from engine.api.app import create_app

    print(
        f"deepresearch: serving on http://{args.host}:{args.port} (API docs at /docs)",
        file=sys.stderr,
    )
    app = create_app(settings, host=args.host)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
