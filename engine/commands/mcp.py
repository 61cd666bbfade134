"""`deepresearch mcp`: the research tools for MCP clients, over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.commands.serve import checkpoint_store_problem, is_loopback
from engine.config import load_settings


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve research as MCP tools (stdio by default)",
        description="Serve the research tools (research, get_report, list_sessions) to MCP "
        "clients: over stdio for a client that launches this command, or over streamable "
        "HTTP (loopback only) at http://HOST:PORT/mcp. See docs/api.md for client set-up.",
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8001, help="HTTP port (8001)")
    parser.set_defaults(handler=serve_mcp)


def serve_mcp(args: argparse.Namespace) -> int:
    settings = load_settings()
    if args.transport == "http" and not is_loopback(args.host):
        # The MCP transport has no token of its own here: it stays on this machine.
        print(
            f"deepresearch mcp: refusing to serve MCP over HTTP on {args.host}; bind a "
            "loopback address, or use `deepresearch serve` with API_TOKEN",
            file=sys.stderr,
        )
        return 2
    problem = checkpoint_store_problem(settings)
    if problem:
        print(f"deepresearch mcp: {problem}", file=sys.stderr)
        return 2
    from engine.api.mcp_tools import build_mcp_server

    server = build_mcp_server(settings)
    if args.transport == "stdio":
        server.run("stdio")
    else:
        print(f"deepresearch: MCP on http://{args.host}:{args.port}/mcp", file=sys.stderr)
        server.run("streamable-http", host=args.host, port=args.port)
    return 0
