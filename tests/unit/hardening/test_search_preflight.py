"""A search setup that cannot work stops the run before it starts; an empty folder is named."""

from __future__ import annotations

import pytest

from tests.unit.hardening.conftest import Sandbox


def test_exa_without_a_key_stops_the_run_naming_the_variable(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("SEARCH_PROVIDER", "exa")
    code, out, err = sandbox.run("run", "How are tasks cancelled?", "--yes")
    assert code == 2
    assert out == ""
    assert err.startswith("deepresearch: SEARCH_PROVIDER=exa needs EXA_API_KEY")
    assert sandbox.run("sessions")[1] == "no saved sessions\n"


def test_a_malformed_exa_base_url_stops_the_run_naming_the_variable(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("SEARCH_PROVIDER", "exa")
    monkeypatch.setenv("EXA_API_KEY", "exa-test-key")
    monkeypatch.setenv("EXA_BASE_URL", "http://[::1")
    code, _out, err = sandbox.run("run", "How are tasks cancelled?", "--yes")
    assert code == 2
    assert err.startswith("deepresearch: invalid setting: EXA_BASE_URL='http://[::1'")


def test_an_empty_documents_folder_is_named_at_the_start(sandbox: Sandbox):
    for document in sandbox.documents.iterdir():
        document.unlink()
    (sandbox.documents / "picture.png").write_bytes(b"\x89PNG")
    code, _out, err = sandbox.run("run", "How are tasks cancelled?", "--yes", "--mode", "quick")
    first_lines = err.splitlines()[:2]
    assert any(
        line.startswith("warning: no documents to search in ") and "DOCUMENTS_PATH" in line
        for line in first_lines
    ), err
    assert code in (0, 4)


def test_a_folder_with_documents_gets_no_such_warning(sandbox: Sandbox):
    code, _out, err = sandbox.run("run", "How are tasks cancelled?", "--yes", "--mode", "quick")
    assert code == 0, err
    assert "no documents to search" not in err
