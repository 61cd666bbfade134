"""fetch_page against the offline web server: content handling, caps, redirects, errors."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from engine.config import Settings, settings_from_mapping
from engine.tools.fetch import MAX_TEXT_CHARS, FetchError, fetch_page
from tests.fixtures.web_server import TEST_RESOLVER, WebServer


def _settings(web: WebServer, tmp_path: Path, **extra: str) -> Settings:
    values = {
        "FETCH_ALLOWED_HOSTS": web.allowed_host,
        "FETCH_TIMEOUT_SECONDS": "5",
        "DATA_DIR": str(tmp_path),
    }
    values.update(extra)
    return settings_from_mapping(values)


async def _fetch_error(url: str, settings: Settings, **kw) -> str:
    with pytest.raises(FetchError) as caught:
        await fetch_page(url, settings, **kw)
    message = str(caught.value)
    # Safe messages never carry addresses, internal names or stack traces.
    assert "127.0.0.1" not in message and "Traceback" not in message
    return message


async def test_fetches_and_extracts_a_page(web_server: WebServer, tmp_path: Path) -> None:
    page = await fetch_page(
        web_server.url("/asyncio-cancellation.html"), _settings(web_server, tmp_path)
    )
    assert page.title == "How asyncio task cancellation works"
    assert page.content_type == "text/html"
    assert "CancelledError exception to be thrown" in page.text
    assert "Fixture page for offline tests" not in page.text  # boilerplate footer dropped
    assert page.final_url == page.url == web_server.url("/asyncio-cancellation.html")


async def test_loopback_is_refused_without_allow_list(
    web_server: WebServer, tmp_path: Path
) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    message = await _fetch_error(web_server.url("/gil-overview.html"), settings)
    assert message == "blocked: loopback address"
    assert web_server.requests == []


async def test_invented_host_reaches_server_through_test_resolver(
    web_server: WebServer, tmp_path: Path
) -> None:
    url = web_server.site_url("site-b", "/gil-overview.html")
    page = await fetch_page(url, _settings(web_server, tmp_path), resolver=TEST_RESOLVER)
    assert page.final_url == url
    assert web_server.requests[-1].host == f"site-b.test:{web_server.port}"


async def test_follows_up_to_five_redirects(web_server: WebServer, tmp_path: Path) -> None:
    # /redirect-chain/N answers with N + 1 redirects before the page.
    page = await fetch_page(web_server.url("/redirect-chain/4"), _settings(web_server, tmp_path))
    assert page.final_url == web_server.url("/asyncio-cancellation.html")
    assert page.url == web_server.url("/redirect-chain/4")
    assert len(web_server.requests) == 6


async def test_more_than_five_redirects_fail(web_server: WebServer, tmp_path: Path) -> None:
    settings = _settings(web_server, tmp_path)
    assert await _fetch_error(web_server.url("/redirect-chain/5"), settings) == "too many redirects"
    assert await _fetch_error(web_server.url("/redirect-loop"), settings) == "too many redirects"


async def test_redirect_without_location(web_server: WebServer, tmp_path: Path) -> None:
    message = await _fetch_error(web_server.url("/redirect-empty"), _settings(web_server, tmp_path))
    assert message == "redirect without a location"


async def test_a_malformed_redirect_location_is_a_fetch_error(
    web_server: WebServer, tmp_path: Path
) -> None:
    url = web_server.url("/redirect?to=http%3A%2F%2F%5Bbad%2F")
    message = await _fetch_error(url, _settings(web_server, tmp_path))
    assert message == "invalid redirect location"


async def test_redirect_to_forbidden_server_sends_it_no_request(
    web_server: WebServer, tmp_path: Path
) -> None:
    with WebServer() as forbidden:
        target = forbidden.url("/asyncio-cancellation.html")
        url = web_server.url(f"/redirect?to={target}")
        message = await _fetch_error(url, _settings(web_server, tmp_path))
        assert message == "blocked: loopback address"
        assert forbidden.requests == []
    assert [r.path for r in web_server.requests] == [f"/redirect?to={target}"]


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "blocked: link-local address"),
        ("http://10.0.0.5/", "blocked: private address"),
        ("http://localhost/", "blocked: local host name"),
        ("http://2130706433/", "blocked: numeric host form"),
        ("file:///etc/passwd", "blocked: only http and https URLs can be fetched"),
        ("http://user:pw@example.com/", "blocked: credentials in URL"),
    ],
)
async def test_redirect_hops_are_checked(
    web_server: WebServer, tmp_path: Path, location: str, reason: str
) -> None:
    url = web_server.url(f"/redirect?to={location}")
    assert await _fetch_error(url, _settings(web_server, tmp_path)) == reason


async def test_redirect_to_name_resolving_privately_is_refused(
    web_server: WebServer, tmp_path: Path
) -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"] if host == "rebind.example" else ["192.168.0.10"]

    url = web_server.url("/redirect?to=http://rebind.example:1/")
    # 127.0.0.1:PORT is allowed, but rebind.example:1 resolves to 127.0.0.1 on another port.
    assert await _fetch_error(url, _settings(web_server, tmp_path), resolver=resolver) == (
        "blocked: loopback address"
    )


@pytest.mark.parametrize("path", ["/slow?seconds=10", "/drip?seconds=10"])
async def test_slow_responses_time_out(web_server: WebServer, tmp_path: Path, path: str) -> None:
    settings = _settings(web_server, tmp_path, FETCH_TIMEOUT_SECONDS="1")
    assert await _fetch_error(web_server.url(path), settings) == "request timed out"


@pytest.mark.parametrize("path", ["/huge?mb=8", "/huge-stream?mb=8", "/gzip-bomb?mb=20"])
async def test_size_caps(web_server: WebServer, tmp_path: Path, path: str) -> None:
    message = await _fetch_error(web_server.url(path), _settings(web_server, tmp_path))
    assert message == "response exceeds the size limit"


async def test_decompressed_size_cap_is_configurable(web_server: WebServer, tmp_path: Path) -> None:
    # 2 MB of spaces fits the default 5 MB cap (and then holds no text) but not a 1 MB cap.
    url = web_server.url("/gzip-bomb?mb=2")
    default = await _fetch_error(url, _settings(web_server, tmp_path))
    assert default == "could not extract readable text from the page"
    smaller = _settings(web_server, tmp_path, FETCH_MAX_BYTES="1000000")
    assert await _fetch_error(url, smaller) == "response exceeds the size limit"


@pytest.mark.parametrize("path", ["/gzip", "/deflate"])
async def test_honest_compression_is_decoded(
    web_server: WebServer, tmp_path: Path, path: str
) -> None:
    page = await fetch_page(web_server.url(path), _settings(web_server, tmp_path))
    assert "write-ahead log mode" in page.text


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/binary", "unsupported content type image/png"),
        ("/octet", "unsupported content type application/octet-stream"),
        ("/status/404", "remote server returned HTTP 404"),
        ("/status/403", "remote server returned HTTP 403"),
        ("/status/503", "remote server returned HTTP 503"),
        ("/status/500", "remote server returned HTTP 500"),
        ("/empty", "could not extract readable text from the page"),
    ],
)
async def test_error_mapping(
    web_server: WebServer, tmp_path: Path, path: str, message: str
) -> None:
    assert await _fetch_error(web_server.url(path), _settings(web_server, tmp_path)) == message


@pytest.mark.parametrize("path", ["/latin1", "/latin1-meta"])
async def test_non_utf8_pages_are_decoded(web_server: WebServer, tmp_path: Path, path: str) -> None:
    page = await fetch_page(web_server.url(path), _settings(web_server, tmp_path))
    assert page.title == "Café crème brûlée"
    assert "très chaud" in page.text and "4€" in page.text


async def test_plain_text_and_untyped_html(web_server: WebServer, tmp_path: Path) -> None:
    settings = _settings(web_server, tmp_path)
    text = await fetch_page(web_server.url("/text"), settings)
    assert text.content_type == "text/plain"
    assert text.title == "Plain text notes on SQLite"
    sniffed = await fetch_page(web_server.url("/no-type"), settings)
    assert sniffed.content_type == "text/html"
    assert "opaque validator" in sniffed.text


async def test_pdf_goes_through_the_document_reader(web_server: WebServer, tmp_path: Path) -> None:
    page = await fetch_page(web_server.url("/pdf"), _settings(web_server, tmp_path))
    assert page.content_type == "application/pdf"
    assert "SQLite WAL guide page one." in page.text
    assert "Checkpoints copy pages back." in page.text


async def test_text_is_truncated(tmp_path: Path) -> None:
    long_page = (
        "<html><head><title>Long</title></head><body><article>"
        + "".join(
            f"<p>Paragraph {i} explains one more detail about write-ahead logging.</p>"
            for i in range(800)
        )
        + "</article></body></html>"
    )
    with WebServer(pages={"long.html": long_page}) as web:
        page = await fetch_page(web.url("/long.html"), _settings(web, tmp_path))
    assert len(page.text) <= MAX_TEXT_CHARS + 1
    assert page.text.startswith("# Long") or "Paragraph 0" in page.text


async def test_connection_refused_is_a_network_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = settings_from_mapping(
        {"FETCH_ALLOWED_HOSTS": f"127.0.0.1:{port}", "DATA_DIR": str(tmp_path)}
    )
    message = await _fetch_error(f"http://127.0.0.1:{port}/", settings)
    assert message == "network error while fetching URL"


async def test_unresolvable_name_is_a_network_error(tmp_path: Path) -> None:
    async def nothing(host: str, port: int) -> list[str]:
        from engine.tools.url_safety import HostResolutionError

        raise HostResolutionError("no such host")

    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    message = await _fetch_error("http://does-not-exist.example/", settings, resolver=nothing)
    assert message == "network error while fetching URL"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "invalid URL: empty URL"),
        ("example.com/page", "blocked: only http and https URLs can be fetched"),
        (
            "http://exa mple.com/",
            "invalid URL: URL contains spaces, control characters or backslashes",
        ),
        ("http://ｌｏｃａｌｈｏｓｔ/", "blocked: local host name"),
    ],
)
async def test_bad_input_urls(tmp_path: Path, url: str, message: str) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path)})
    assert await _fetch_error(url, settings) == message


async def test_https_pins_the_checked_address_and_verifies_the_real_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures.tls import make_certificates

    certs = make_certificates(tmp_path / "tls", ["site-a.test"])
    monkeypatch.setattr("engine.tools.fetch._tls_context", certs.client_context)
    with WebServer(tls=certs.server_context()) as web:
        settings = _settings(web, tmp_path)
        url = web.site_url("site-a", "/sqlite-wal.html")
        page = await fetch_page(url, settings, resolver=TEST_RESOLVER)
        assert page.final_url == url and "write-ahead log mode" in page.text
        assert web.requests[-1].host == f"site-a.test:{web.port}"
        # Same address, but a name the certificate does not cover: verification must fail.
        other = web.site_url("site-b", "/sqlite-wal.html")
        message = await _fetch_error(other, settings, resolver=TEST_RESOLVER)
        assert message == "network error while fetching URL"
