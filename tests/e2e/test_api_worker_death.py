"""A `deepresearch serve` worker killed with SIGKILL mid-research; another worker finishes.

Worker A is a real subprocess; worker B is a real uvicorn server in this process; both use
one DATA_DIR. The web search (the Exa-compatible fixture) answers the first research search
and leaves the next one hanging, so A is killed while it has evidence and is still working.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from engine.config import settings_from_mapping
from engine.run.runner import open_session
from tests.e2e.test_api import sse
from tests.fixtures.exa_server import ExaServer
from tests.fixtures.web_server import WebServer
from tests.helpers.api_server import api_server

QUESTION = {"question": "How do asyncio queues and locks coordinate tasks?", "mode": "deep"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _events(data_dir: Path, session_id: str) -> list[dict[str, object]]:
    path = data_dir / "session-events" / f"{session_id}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_a_killed_worker_loses_nothing_and_another_worker_finishes(tmp_path: Path) -> None:
    env_file = tmp_path / "empty.env"
    env_file.write_text("")
    data_dir = tmp_path / "data"
    with WebServer() as web, ExaServer(web_port=web.port) as exa:
        values = {
            "SEARCH_PROVIDER": "exa",
            "EXA_API_KEY": exa.api_key,
            "EXA_BASE_URL": exa.base_url,
            "FETCH_ALLOWED_HOSTS": web.allowed_host,
            "FETCH_TIMEOUT_SECONDS": "5",
            "DATA_DIR": str(data_dir),
            "MAX_CONCURRENT_RESEARCH_UNITS": "1",
            "RESEARCHER_SEARCH_BUDGET": "1",
            "MIN_EVIDENCE_RECORDS": "1",
            "MIN_SOURCE_DOMAINS": "1",
        }
        port = _free_port()
        env = {
            **values,
            "DEEPRESEARCH_ENV_FILE": str(env_file),
            "PATH": os.environ["PATH"],
            "ENGINE_PROCESSES": "1",  # the one session needs one; each imports the engine
        }
        code = "import sys; from tui.cli import main; sys.exit(main())"
        worker_a = subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--port", str(port)],
            env=env,
            stderr=subprocess.DEVNULL,
        )
        base_a = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{base_a}/healthz", timeout=1)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "worker A did not start"
                    time.sleep(0.1)
            with httpx.stream("POST", f"{base_a}/v1/research", json=QUESTION, timeout=60) as r:
                session_id = r.headers["x-session-id"]
                assert list(sse(r))[-1][1] == "plan_proposed"
            # The first research search is answered, the next one hangs: A is mid-research.
            exa.hang(after=1)
            approve = {"action": "approve"}
            reply = httpx.post(f"{base_a}/v1/sessions/{session_id}/plan", json=approve)
            assert reply.status_code == 202
            deadline = time.monotonic() + 60
            while not any(e["type"] == "evidence_added" for e in _events(data_dir, session_id)):
                assert time.monotonic() < deadline, "worker A recorded no evidence"
                time.sleep(0.05)
            time.sleep(0.5)  # into the hanging search
            seen = _events(data_dir, session_id)
            assert seen[-1]["type"] != "run_finished"
        finally:
            worker_a.send_signal(signal.SIGKILL)
            worker_a.wait(timeout=30)
        exa.clear_faults()
        before = {
            e["record"]["claim"]  # type: ignore[index]
            for e in _events(data_dir, session_id)
            if e["type"] == "evidence_added"
        }

        settings = settings_from_mapping(values)
        with api_server(settings) as base_b:
            listed = httpx.get(f"{base_b}/v1/sessions/{session_id}").json()
            assert listed["status"] == "interrupted" and listed["stage"] == "unfinished"
            assert httpx.post(f"{base_b}/v1/sessions/{session_id}/resume").status_code == 202
            url = f"{base_b}/v1/sessions/{session_id}/events"
            headers = {"Last-Event-ID": str(len(seen))}
            with httpx.stream("GET", url, headers=headers, timeout=120) as response:
                after = list(sse(response))
        assert after[0][0] == len(seen) + 1  # the stream goes on where A's left off
        assert after[-1][1] == "run_finished" and after[-1][2]["status"] == "completed"

    async with open_session(settings, session_id) as session:
        state = await session.graph.aget_state(session.config)
    ledger = {record["claim"] for record in state.values["evidence_ledger"]}
    assert before and before <= ledger  # no evidence A had recorded is lost
    assert "## Sources" in state.values["verified_report"]
