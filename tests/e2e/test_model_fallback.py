"""FALLBACK_MODELS: a dead model's calls go to the next one; all dead leaves a resumable session."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path
from typing import Any

from engine.commands.run import EXIT_FAILED, EXIT_OK, run_headless
from tests.e2e.remote_stack import REMOTE_MODEL, remote_stack
from tests.unit.engine.test_headless import parse

QUESTION = "How do you cancel an asyncio task?"


def dead_url() -> str:
    """A loopback port nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


async def run(settings: Any, *argv: str, events: Path) -> tuple[int, str, list[dict[str, Any]]]:
    err = io.StringIO()
    code = await run_headless(
        settings, parse(*argv, "--events", str(events)), stderr=err, stdout=io.StringIO()
    )
    lines = events.read_text().splitlines()
    return code, err.getvalue(), [json.loads(line) for line in lines]


async def test_a_dead_model_hands_its_calls_to_the_fallback_and_the_switch_is_an_event(
    tmp_path: Path,
) -> None:
    with remote_stack() as stack:
        settings = stack.settings(
            tmp_path,
            ORCHESTRATOR_MODEL="primary-model",
            ORCHESTRATOR_BASE_URL=dead_url(),
            FALLBACK_MODELS=f"{REMOTE_MODEL}@{stack.llm.base_url}",
            MODEL_PRICES=f"{REMOTE_MODEL}=1000/2000",
            LLM_MAX_RETRIES="0",
        )
        code, err, events = await run(
            settings, QUESTION, "--mode", "quick", events=tmp_path / "e.jsonl"
        )
    assert code == EXIT_OK, err
    switches = [e for e in events if e["type"] == "model_switched"]
    usage = [e for e in events if e["type"] == "usage_updated"]
    # Announced once: later calls go straight to the fallback while the dead model rests.
    assert len(switches) == 1 and len(usage) >= 2
    assert switches[0]["from_model"] == "primary-model"
    assert switches[0]["to_model"] == REMOTE_MODEL
    assert "cannot be reached" in switches[0]["reason"]
    assert "switching to offline-policy" in err
    # The fallback answered, so its price applies.
    assert usage and all(e["model"] == REMOTE_MODEL for e in usage)
    assert usage[-1]["total_cost_usd"] > 0


async def test_every_model_down_names_each_endpoint_and_resumes_once_one_answers(
    tmp_path: Path,
) -> None:
    first, second = dead_url(), dead_url()
    with remote_stack() as stack:
        settings = stack.settings(
            tmp_path,
            ORCHESTRATOR_MODEL="primary-model",
            ORCHESTRATOR_BASE_URL=first,
            FALLBACK_MODELS=f"spare-model@{second}",
            LLM_MAX_RETRIES="0",
        )
        code, err, events = await run(
            settings, QUESTION, "--mode", "quick", events=tmp_path / "e.jsonl"
        )
        assert code == EXIT_FAILED
        failed = [e for e in events if e["type"] == "run_failed"][-1]
        assert failed["resumable"]
        for name, url in (("primary-model", first), ("spare-model", second)):
            endpoint = url.removeprefix("http://").removesuffix("/v1")
            assert f"{name} at {endpoint} cannot be reached" in failed["error"]
        assert "sk-" not in failed["error"] and "Traceback" not in err

        # The spare comes back (here: the fallback now names a live server).
        revived = stack.settings(
            tmp_path,
            ORCHESTRATOR_MODEL="primary-model",
            ORCHESTRATOR_BASE_URL=first,
            FALLBACK_MODELS=f"{REMOTE_MODEL}@{stack.llm.base_url}",
            LLM_MAX_RETRIES="0",
        )
        code, err, events = await run(
            revived, "--resume", failed["session_id"], events=tmp_path / "r.jsonl"
        )
    assert code == EXIT_OK, err
    assert [e for e in events if e["type"] == "report_ready"]
