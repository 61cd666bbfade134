"""search(): providers over the offline servers, registry recording, metrics, error mapping."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.citations.registry import SourceRegistry
from engine.text.retry_after import parse_retry_after
from engine.tools.exa_search import ExaSearchProvider
from engine.tools.search import MAX_QUERY_CHARS, SearchError, clean_query, provider_for, search
from tests.fixtures.exa_server import ExaServer
from tests.fixtures.servers import exa_settings, local_settings
from tests.fixtures.web_server import WebServer, site_for
from tests.unit.tools.conftest import CapturedEvents


async def test_exa_search_returns_ranked_corpus_urls(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path, events: CapturedEvents
) -> None:
    registry = SourceRegistry()
    settings = exa_settings(exa_server, web_server, tmp_path)
    results = await search("SQLite WAL checkpoint", settings, registry)
    assert results[0].url == exa_server.url_for("sqlite-checkpoints.html")
    assert results[0].title == "Checkpoints in SQLite WAL mode"
    assert "checkpoint" in results[0].passage.lower()
    assert {r.url for r in results} <= set(registry.urls())
    hosts = {r.url.split("/")[2].split(":")[0] for r in results if r.url}
    assert len(hosts) >= 3  # results span several sites, as the evidence gate needs
    [metric] = events.metrics("search_preprocess")
    assert metric.values["llm_calls_in_preprocess"] == 0
    assert metric.values["results_after"] == len(results)
    assert metric.values["provider"] == "exa"


async def test_exa_request_uses_the_real_wire_format(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    await search("GIL threads", exa_settings(exa_server, web_server, tmp_path), max_results=3)
    [call] = exa_server.requests
    assert call.path == "/search"
    assert call.headers.get("x-api-key") == exa_server.api_key
    assert call.body["query"] == "GIL threads"
    assert call.body["numResults"] == 3
    assert call.body["contents"] == {"text": {"maxCharacters": 4000}}


async def test_local_search_records_document_keys(tmp_path: Path, events: CapturedEvents) -> None:
    registry = SourceRegistry()
    results = await search("global interpreter lock", local_settings(tmp_path), registry)
    assert results[0].document == "gil-overview.html"
    assert all(r.url is None and r.document for r in results)
    assert set(registry.documents()) == {r.document for r in results}
    assert events.metrics("search_preprocess")[0].values["provider"] == "local"


async def test_search_results_are_capped_by_setting(tmp_path: Path) -> None:
    settings = local_settings(tmp_path, MAX_SEARCH_RESULTS_FOR_AGENT="2")
    assert len(await search("asyncio sqlite GIL cache", settings)) == 2
    assert len(await search("asyncio sqlite GIL cache", settings, max_results=50)) == 2


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
async def test_empty_query_is_a_clear_error(tmp_path: Path, query: str) -> None:
    with pytest.raises(SearchError, match="empty"):
        await search(query, local_settings(tmp_path))


async def test_huge_query_is_truncated_before_the_provider(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    query = "sqlite wal " + "lorem " * 2000
    await search(query, exa_settings(exa_server, web_server, tmp_path))
    sent = exa_server.requests[0].body["query"]
    assert len(sent) <= MAX_QUERY_CHARS
    assert sent.startswith("sqlite wal lorem")
    assert clean_query("word " * 3000)[1] is True


async def test_none_provider_offers_no_search(tmp_path: Path) -> None:
    settings = local_settings(tmp_path, SEARCH_PROVIDER="none")
    assert provider_for(settings) is None
    with pytest.raises(SearchError, match="disabled"):
        await search("anything", settings)


async def test_missing_exa_key_is_explained(tmp_path: Path) -> None:
    settings = local_settings(tmp_path, SEARCH_PROVIDER="exa")
    with pytest.raises(SearchError, match="EXA_API_KEY is not set"):
        await search("anything", settings)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "search provider rejected the API key (HTTP 401); check EXA_API_KEY"),
        (403, "search provider rejected the API key (HTTP 403); check EXA_API_KEY"),
        (500, "search provider returned HTTP 500; try again later"),
        (503, "search provider returned HTTP 503; try again later"),
        (400, "search provider refused the request (HTTP 400)"),
        (429, "search provider is rate limiting requests (HTTP 429); try again later"),
    ],
)
async def test_exa_errors_map_to_clear_messages(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path, status: int, message: str
) -> None:
    exa_server.fail_with(status)
    with pytest.raises(SearchError) as caught:
        await search("asyncio", exa_settings(exa_server, web_server, tmp_path))
    assert str(caught.value) == message


async def test_wrong_key_is_rejected_by_the_server(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    settings = exa_settings(exa_server, web_server, tmp_path, EXA_API_KEY="wrong-key")
    with pytest.raises(SearchError, match="HTTP 401") as caught:
        await search("asyncio", settings)
    assert "wrong-key" not in str(caught.value)


async def test_429_waits_for_retry_after_then_succeeds(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    exa_server.fail_with(429, retry_after="2", times=1)
    provider = ExaSearchProvider(exa_settings(exa_server, web_server, tmp_path), sleep=sleep)
    results = await provider.search("asyncio cancellation", 5)
    assert slept == [2.0]
    assert results and len(exa_server.requests) == 2


async def test_429_really_sleeps_with_the_default_sleeper(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    exa_server.fail_with(429, retry_after="1", times=1)
    started = time.monotonic()
    results = await search("asyncio", exa_settings(exa_server, web_server, tmp_path))
    assert time.monotonic() - started >= 1.0
    assert results


async def test_429_beyond_the_cap_fails_without_waiting(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    exa_server.fail_with(429, retry_after="3600")
    provider = ExaSearchProvider(exa_settings(exa_server, web_server, tmp_path), sleep=sleep)
    with pytest.raises(SearchError, match="HTTP 429"):
        await provider.search("asyncio", 5)
    assert slept == [] and len(exa_server.requests) == 1


async def test_persistent_429_gives_up_after_three_attempts(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    async def sleep(seconds: float) -> None:
        return None

    exa_server.fail_with(429, retry_after="1")
    provider = ExaSearchProvider(exa_settings(exa_server, web_server, tmp_path), sleep=sleep)
    with pytest.raises(SearchError, match="HTTP 429"):
        await provider.search("asyncio", 5)
    assert len(exa_server.requests) == 3


async def test_hanging_provider_times_out(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    exa_server.hang()
    settings = exa_settings(exa_server, web_server, tmp_path, FETCH_TIMEOUT_SECONDS="1")
    started = time.monotonic()
    with pytest.raises(SearchError, match="timed out"):
        await search("asyncio", settings)
    assert time.monotonic() - started < 5


async def test_unreachable_provider_is_a_network_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = local_settings(
        tmp_path, SEARCH_PROVIDER="exa", EXA_API_KEY="k", EXA_BASE_URL=f"http://127.0.0.1:{port}"
    )
    with pytest.raises(SearchError) as caught:
        await search("asyncio", settings)
    assert str(caught.value) == "network error while contacting the search provider"


def test_parse_retry_after_forms() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_fixture_sites_spread_over_hosts() -> None:
    assert site_for("asyncio-cancellation.html") != site_for("asyncio-taskgroups.html")


async def test_exa_server_contents_endpoint_speaks_exa_py(
    exa_server: ExaServer, web_server: WebServer
) -> None:
    from exa_py import AsyncExa

    url = exa_server.url_for("http-etags.html")
    async with AsyncExa(exa_server.api_key, api_base=exa_server.base_url) as exa:
        response = await exa.get_contents([url, "http://unknown.test/"], text=True)
    assert [r.url for r in response.results] == [url]
    assert "opaque validator" in (response.results[0].text or "")
    assert exa_server.requests[-1].path == "/contents"
    assert exa_server.requests[-1].body["urls"] == [url, "http://unknown.test/"]
