"""The app's engine link exports through the engine's exporter in a thread, and looks for a
local model server only when no endpoint is configured."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import settings_from_mapping
from tests.unit.export.sample_report import SESSION, sample_report
from tui.link.engine_backend import EngineBackend


async def test_export_writes_the_chosen_format(tmp_path: Path) -> None:
    backend = EngineBackend(settings_from_mapping({"DATA_DIR": str(tmp_path)}), cwd=tmp_path)
    written = await backend.export_report(
        sample_report(), question="Caches?", session_id=SESSION, fmt="html", path=tmp_path / "r"
    )
    assert written == (tmp_path / "r").resolve()
    assert 'id="source-1"' in written.read_text(encoding="utf-8")


async def test_export_refuses_a_format_it_does_not_write(tmp_path: Path) -> None:
    backend = EngineBackend(settings_from_mapping({"DATA_DIR": str(tmp_path)}), cwd=tmp_path)
    with pytest.raises(ValueError, match="unknown export format 'rtf'"):
        await backend.export_report(
            sample_report(), question="", session_id=SESSION, fmt="rtf", path=tmp_path / "r"
        )
    assert not (tmp_path / "r").exists()


async def test_no_local_model_is_looked_for_when_an_endpoint_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.doctor.discovery as discovery

    async def must_not_run(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("looked for local servers with an endpoint configured")

    monkeypatch.setattr(discovery, "discover_local_servers", must_not_run)
    settings = settings_from_mapping(
        {"DATA_DIR": str(tmp_path), "ORCHESTRATOR_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert await EngineBackend(settings, cwd=tmp_path).local_model_offers() == []


async def test_a_found_server_becomes_an_offer_of_its_first_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.doctor.discovery as discovery

    async def found(*args: object, **kwargs: object) -> list[discovery.LocalServer]:
        return [discovery.LocalServer(11434, "Ollama", ("qwen2.5:7b", "llama3.2"))]

    monkeypatch.setattr(discovery, "discover_local_servers", found)
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    [offer] = await EngineBackend(settings, cwd=tmp_path).local_model_offers()
    assert offer.model == "qwen2.5:7b"
    assert offer.settings["ORCHESTRATOR_BASE_URL"] == "http://127.0.0.1:11434/v1"
    assert offer.description.startswith("127.0.0.1:11434 (Ollama's usual port): 2 models")
