"""The engine never imports the UI; light modules stay light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ENGINE_MODULES = sorted(
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for path in (ROOT / "engine").rglob("*.py")
)


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_engine_modules_were_found() -> None:
    assert "engine.config" in ENGINE_MODULES
    assert "engine.events" in ENGINE_MODULES


def test_importing_every_engine_module_never_imports_textual_or_tui() -> None:
    statement = "\n".join(f"import {name}" for name in ENGINE_MODULES)
    loaded = _modules_after(statement)
    # `rich` is not checked: httpx loads it for its own command line whenever `click` is
    # installed (uvicorn needs it), whatever the engine imports.
    leaked = sorted(m for m in loaded if m.split(".")[0] in {"textual", "tui"})
    assert leaked == [], f"engine imported UI modules: {leaked[:10]}"


@pytest.mark.parametrize(
    "module", ["engine", "engine.config", "engine.events", "engine.schemas", "engine.protocol"]
)
def test_contract_modules_do_not_pull_the_langchain_stack(module: str) -> None:
    loaded = _modules_after(f"import {module}")
    heavy = sorted(
        m
        for m in loaded
        if m.split(".")[0] in {"langchain_core", "langgraph", "langchain", "httpx"}
    )
    assert heavy == [], f"{module} imported {heavy[:5]}"


def test_the_event_contract_loads_only_the_evidence_model_of_citations() -> None:
    loaded = _modules_after("import engine.events")
    citations = sorted(m for m in loaded if m.startswith("engine.citations"))
    assert citations == ["engine.citations", "engine.citations.evidence"]


def test_citation_names_still_resolve_from_the_package() -> None:
    import engine.citations as citations

    assert callable(citations.verify_citations)
    assert citations.SourceRegistry.__name__ == "SourceRegistry"
    assert set(citations.__all__) >= {"sanitize_report", "extract_cited_sentences"}
