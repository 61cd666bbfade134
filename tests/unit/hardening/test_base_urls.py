"""Base URLs that cannot work are refused when settings load, naming the variable."""

from __future__ import annotations

import pytest

from engine.config import SettingsError, settings_from_mapping


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("http://[::1", "IPv6 address"),
        ("http://[::1/v1", "IPv6 address"),
        ("http://localhost:99999/v1", "port that is not"),
        ("http://localhost:0/v1", "port that is not"),
        ("http://localhost:abc/v1", "port that is not"),
        ("http://local host:8000/v1", "holds a space"),
        ("http://exa example.com", "holds a space"),
        ("http://:8000/v1", "host name"),
        ("https:///v1", "host name"),
        ("http://bad_host!/v1", "host name"),
        ("http://localhost:8000/v1\x1b[2J", "control character"),
    ],
)
@pytest.mark.parametrize("variable", ["ORCHESTRATOR_BASE_URL", "WRITER_BASE_URL", "EXA_BASE_URL"])
def test_a_base_url_that_cannot_work_names_the_variable(variable: str, value: str, reason: str):
    with pytest.raises(SettingsError) as caught:
        settings_from_mapping({variable: value})
    message = str(caught.value)
    assert f"{variable}=" in message
    assert reason in message.split("; allowed:")[0]


@pytest.mark.parametrize(
    "value",
    [
        "http://localhost:8000/v1",
        "https://api.openai.com/v1",
        "http://127.0.0.1:11434/v1/",
        "http://[::1]:8080/v1",
        "http://my-server.internal/v1",
        "https://exa.example",
        "http://user:pass@proxy.example:3128/v1",
        "http://bücher.example/v1",
    ],
)
def test_working_base_urls_are_kept(value: str):
    settings = settings_from_mapping({"ORCHESTRATOR_BASE_URL": value})
    assert settings.orchestrator_base_url == value.rstrip("/")
