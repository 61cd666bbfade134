"""Settings: defaults, overrides, validation errors, .env discovery, provider resolution."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from engine.config import (
    DEFAULT_ONLINE_MODEL,
    OFFLINE_MODEL,
    SAMPLE_CORPUS,
    Settings,
    SettingsError,
    find_env_file,
    load_settings,
    settings_from_mapping,
)

ROOT = Path(__file__).resolve().parents[3]


def test_defaults_match_the_design() -> None:
    settings = settings_from_mapping({})
    assert settings.max_concurrent_research_units == 4
    assert settings.max_researcher_iterations == 60
    assert settings.max_react_tool_calls == 40
    assert settings.researcher_search_budget == 15
    assert settings.min_evidence_records == 5
    assert settings.min_source_domains == 3
    assert settings.supervisor_notes_max_bullets == 40
    assert settings.supervisor_notes_word_budget == 1200
    assert settings.max_evidence_claims_per_research_unit == 5
    assert settings.max_source_urls_per_claim == 5
    assert settings.max_search_results_for_agent == 8
    assert settings.max_llm_turns == 10
    assert settings.max_tool_iterations == 5
    assert settings.planner_searches == 4
    assert settings.research_mode == "auto"


def test_nothing_configured_means_offline_model_and_sample_corpus() -> None:
    settings = settings_from_mapping({})
    assert settings.offline
    assert not settings.llm_endpoint_configured
    for role in ("orchestrator", "researcher", "planner", "writer"):
        assert settings.role_model(role).model == OFFLINE_MODEL  # type: ignore[arg-type]
    assert settings.resolved_search_provider == "local"
    assert settings.resolved_documents_path == SAMPLE_CORPUS


def test_overrides_from_names_in_any_case() -> None:
    settings = settings_from_mapping(
        {"MAX_CONCURRENT_RESEARCH_UNITS": "7", "min_source_domains": "1", "UNRELATED": "x"}
    )
    assert settings.max_concurrent_research_units == 7
    assert settings.min_source_domains == 1


def test_key_selects_online_default_model_and_roles_fall_back() -> None:
    settings = settings_from_mapping(
        {
            "OPENAI_API_KEY": "sk-abc",
            "ORCHESTRATOR_BASE_URL": "http://localhost:8000/v1/",
            "WRITER_MODEL": "big-writer",
            "PLANNER_BASE_URL": "http://planner:9000/v1",
        }
    )
    assert not settings.offline
    assert settings.role_model("orchestrator").model == DEFAULT_ONLINE_MODEL
    assert settings.role_model("orchestrator").base_url == "http://localhost:8000/v1"
    assert settings.role_model("researcher").model == DEFAULT_ONLINE_MODEL
    assert settings.role_model("researcher").base_url == "http://localhost:8000/v1"
    assert settings.role_model("writer").model == "big-writer"
    assert settings.role_model("planner").base_url == "http://planner:9000/v1"


def test_base_url_alone_configures_an_endpoint_without_key() -> None:
    settings = settings_from_mapping({"ORCHESTRATOR_BASE_URL": "http://127.0.0.1:11434/v1"})
    assert settings.llm_endpoint_configured
    assert not settings.offline


def test_offline_can_be_forced_even_with_a_key() -> None:
    settings = settings_from_mapping({"OPENAI_API_KEY": "sk-x", "ORCHESTRATOR_MODEL": "offline"})
    assert settings.offline
    assert settings.role_model("writer").offline


def test_provider_resolution(tmp_path: Path) -> None:
    assert settings_from_mapping({"EXA_API_KEY": "k"}).resolved_search_provider == "exa"
    docs = settings_from_mapping({"EXA_API_KEY": "k", "DOCUMENTS_PATH": str(tmp_path)})
    assert docs.resolved_search_provider == "local"
    assert docs.resolved_documents_path == tmp_path
    explicit = settings_from_mapping({"EXA_API_KEY": "k", "SEARCH_PROVIDER": "NONE"})
    assert explicit.resolved_search_provider == "none"


@pytest.mark.parametrize(
    ("variable", "value", "allowed"),
    [
        ("MAX_CONCURRENT_RESEARCH_UNITS", "abc", "an integer from 1 to 64"),
        ("MAX_CONCURRENT_RESEARCH_UNITS", "0", "an integer from 1 to 64"),
        ("MAX_RESEARCHER_ITERATIONS", "-3", "an integer from 1 to 10000"),
        ("MIN_EVIDENCE_RECORDS", "x", "an integer from 0 to 10000"),
        ("LLM_TIMEOUT_SECONDS", "-1", "a number above 0 and at most 3600"),
        ("SEARCH_PROVIDER", "bing", "one of exa, local, none"),
        ("RESEARCH_MODE", "slow", "one of auto, quick, deep"),
        ("ORCHESTRATOR_BASE_URL", "ftp://host", "an http:// or https:// URL"),
        ("EXA_BASE_URL", "api.exa.ai", "an http:// or https:// URL"),
        ("DOCUMENTS_PATH", "/definitely/not/here", "a folder path"),
        ("FETCH_ALLOWED_HOSTS", "a.example/path", "comma-separated host or host:port"),
        ("MAX_LLM_TURNS", "1000", "an integer from 1 to 200"),
    ],
)
def test_bad_values_name_variable_value_and_what_is_allowed(
    variable: str, value: str, allowed: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_mapping({variable: value})
    message = str(caught.value)
    assert f"{variable}={value!r}" in message
    assert f"allowed: {allowed}" in message


def test_every_error_is_reported_at_once() -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_mapping({"MAX_LLM_TURNS": "0", "SEARCH_PROVIDER": "x"})
    assert "MAX_LLM_TURNS" in str(caught.value)
    assert "SEARCH_PROVIDER" in str(caught.value)


def test_secrets_are_never_in_repr_logs_or_errors(caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-live-verysecret123"
    settings = settings_from_mapping({"OPENAI_API_KEY": secret, "EXA_API_KEY": secret})
    assert secret not in repr(settings)
    assert secret not in str(settings)
    assert secret not in settings.model_dump_json()
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("test").info("settings: %s", settings)
    assert secret not in caplog.text
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == secret
    with pytest.raises(SettingsError) as caught:
        settings_from_mapping({"OPENAI_API_KEY": secret, "MAX_LLM_TURNS": "zero"})
    assert secret not in str(caught.value)


def test_blank_values_mean_unset() -> None:
    settings = settings_from_mapping(
        {"OPENAI_API_KEY": "  ", "SEARCH_PROVIDER": "", "DATA_DIR": ""}
    )
    assert settings.openai_api_key is None
    assert settings.search_provider is None
    assert settings.offline
    assert settings.data_dir.name == "deepresearch"


def test_env_file_found_by_walking_up(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("MAX_LLM_TURNS=7\n")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_env_file({}, nested) == tmp_path / ".env"
    assert load_settings({}, nested).max_llm_turns == 7


def test_explicit_env_file_wins_over_walking_up(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("MAX_LLM_TURNS=7\n")
    chosen = tmp_path / "custom.env"
    chosen.write_text("MAX_LLM_TURNS=9\n")
    environ = {"DEEPRESEARCH_ENV_FILE": str(chosen)}
    assert load_settings(environ, tmp_path).max_llm_turns == 9


def test_missing_explicit_env_file_is_a_named_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="DEEPRESEARCH_ENV_FILE"):
        load_settings({"DEEPRESEARCH_ENV_FILE": str(tmp_path / "nope.env")}, tmp_path)


def test_environment_overrides_env_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("MAX_LLM_TURNS=7\nMAX_TOOL_ITERATIONS=2\n")
    settings = load_settings({"MAX_LLM_TURNS": "3"}, tmp_path)
    assert settings.max_llm_turns == 3
    assert settings.max_tool_iterations == 2


def test_no_env_file_anywhere(tmp_path: Path) -> None:
    isolated = tmp_path / "x"
    isolated.mkdir()
    found = find_env_file({}, isolated)
    assert found is None or found.parent not in (isolated, tmp_path)


def test_env_example_lists_every_setting() -> None:
    text = (ROOT / ".env.example").read_text()
    names = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    expected = {name.upper() for name in Settings.model_fields}
    assert expected == names
    assert not re.search(r"^[A-Z_]*KEY=\S", text, flags=re.MULTILINE)


def test_settings_are_frozen() -> None:
    settings = settings_from_mapping({})
    with pytest.raises(Exception):
        settings.max_llm_turns = 3  # type: ignore[misc]
