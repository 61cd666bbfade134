"""A model that echoes its API key puts it nowhere: not in events, the audit, the report, the
checkpoints or the log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.openai_server import OpenAIServer
from tests.unit.hardening.conftest import Sandbox

KEY = "sk-echoed-canary-7f3a9b2c"


@pytest.fixture
def echoing_model(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as llm:
        llm.fail("echo_key", times=100_000)
        for name, value in {
            "OPENAI_API_KEY": KEY,
            "ORCHESTRATOR_MODEL": "echoing-model",
            "ORCHESTRATOR_BASE_URL": llm.base_url,
            "MODEL_TOOL_CALLING": "native",
            "MODEL_STRUCTURED_OUTPUT": "json_schema",
            "SEARCH_PROVIDER": "local",
            "LLM_TIMEOUT_SECONDS": "10",
        }.items():
            monkeypatch.setenv(name, value)
        yield llm


def _files_holding(folder: Path, text: str) -> list[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and text.encode() in path.read_bytes()
    )


@pytest.mark.parametrize("mode", ["quick", "deep"])
def test_an_echoed_key_is_redacted_everywhere_the_session_is_kept(
    sandbox: Sandbox, echoing_model: OpenAIServer, mode: str
):
    events = sandbox.root / "events.jsonl"
    code, out, err = sandbox.run(
        "run", "How are tasks cancelled?", "--yes", "--mode", mode, "--events", str(events)
    )
    assert code == 0, err
    assert KEY not in out and KEY not in err
    assert KEY not in events.read_text(encoding="utf-8")
    assert _files_holding(sandbox.data_dir, KEY) == []
    assert "[redacted]" in events.read_text(encoding="utf-8")  # the model did echo it
