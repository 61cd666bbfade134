"""fetch_page: download one web page safely and return its readable text.

Every hop (the first request and each of at most five redirects) is validated with
`validate_url`, its host resolved and checked by `resolve_checked`, and the connection made to
that checked address with the original Host header and TLS server name, so there is no window
for DNS rebinding. Bodies are streamed under a size cap, decompressed by hand under the same
cap (a compression bomb stops at the limit), and the whole fetch runs under one deadline.
Text extraction runs in a worker thread.

Every failure is a `FetchError` whose message is generic and safe to show: it never contains
an internal host name, an address or a stack trace.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urljoin

import httpx

from engine.config import Settings
from engine.tools.extract import clip, extract_content
from engine.tools.url_safety import (
    HostResolutionError,
    Resolver,
    UnsafeURLError,
    ValidatedURL,
    resolve_checked,
    validate_url,
)

MAX_REDIRECTS = 5
MAX_TEXT_CHARS = 8000
USER_AGENT = "deepresearch/0.1 (research assistant; +https://github.com/)"
_ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.1"
_TEXT_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "text/plain", "text/markdown", "text/x-markdown"}
)
_ACCEPTED_TYPES = _TEXT_TYPES | {"application/pdf"}
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


class FetchError(Exception):
    """A fetch failed; the message is generic and safe to show to the user and the model."""


@dataclass(frozen=True)
class FetchedPage:
    """The readable text of a fetched page."""

    url: str
    final_url: str
    title: str
    text: str
    content_type: str


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    # Loading CA certificates costs tens of milliseconds: do it once per process.
    return httpx.create_ssl_context()


class _BoundedBody:
    """Collects a response body, decompressing by hand so neither size can pass `limit`."""

    def __init__(self, content_encoding: str, limit: int) -> None:
        encoding = content_encoding.strip().lower()
        self.limit = limit
        self.raw_size = 0
        self.parts: list[bytes] = []
        self.size = 0
        self._decompressor: zlib._Decompress | None
        if encoding in ("", "identity"):
            self._decompressor = None
        elif encoding in ("gzip", "x-gzip"):
            self._decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._decompressor = zlib.decompressobj(zlib.MAX_WBITS)
        else:
            raise FetchError("unsupported content encoding")

    def _append(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise FetchError("response exceeds the size limit")
        self.parts.append(data)

    def feed(self, chunk: bytes) -> None:
        self.raw_size += len(chunk)
        if self.raw_size > self.limit:
            raise FetchError("response exceeds the size limit")
        if self._decompressor is None:
            self._append(chunk)
            return
        pending = chunk
        try:
            while pending:
                # max_length bounds each step, so a bomb never expands past the limit in memory.
                out = self._decompressor.decompress(pending, self.limit - self.size + 1)
                self._append(out)
                pending = self._decompressor.unconsumed_tail
        except zlib.error:
            raise FetchError("response body is corrupt") from None

    def body(self) -> bytes:
        if self._decompressor is not None:
            try:
                self._append(self._decompressor.flush())
            except zlib.error:
                raise FetchError("response body is corrupt") from None
        return b"".join(self.parts)


def _media_type(content_type: str, body_start: bytes) -> tuple[str, str | None]:
    media, _, params = content_type.partition(";")
    media = media.strip().lower()
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    if not media:
        head = body_start.lstrip()[:512].lower()
        if head.startswith(b"%pdf"):
            media = "application/pdf"
        elif head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
            media = "text/html"
        else:
            media = "text/plain"
    return media, charset


async def _request_hop(
    client: httpx.AsyncClient,
    target: ValidatedURL,
    address: str,
    limit: int,
) -> tuple[int, str | None, str, bytes]:
    """One request to the checked address: (status, location, content type, body)."""
    host = f"[{address}]" if ":" in address else address
    pinned_url = f"{target.scheme}://{host}:{target.port}{target.target}"
    headers = {"Host": target.host_header}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    async with client.stream("GET", pinned_url, headers=headers, extensions=extensions) as resp:
        status = resp.status_code
        if status in _REDIRECT_CODES:
            return status, resp.headers.get("location"), "", b""
        if status >= 400:
            raise FetchError(f"remote server returned HTTP {status}")
        if status != 200:
            raise FetchError(f"remote server returned HTTP {status}")
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchError("response exceeds the size limit")
        content_type = resp.headers.get("content-type", "")
        media = content_type.partition(";")[0].strip().lower()
        if media and media not in _ACCEPTED_TYPES:
            raise FetchError(f"unsupported content type {media[:60]}")
        body = _BoundedBody(resp.headers.get("content-encoding", ""), limit)
        async for chunk in resp.aiter_raw():
            body.feed(chunk)
        return status, None, content_type, body.body()


@dataclass(frozen=True)
class _Download:
    final_url: str
    content_type: str
    body: bytes


async def _download(url: str, settings: Settings, resolver: Resolver | None) -> _Download:
    """Follow redirects (each hop checked) and read the final body under the caps."""
    allowed = settings.fetch_allowed_hosts
    timeout = settings.fetch_timeout_seconds
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        follow_redirects=False,
        trust_env=False,  # a proxy from the environment would bypass the address checks
        verify=_tls_context(),
        # No pooled connections: each hop connects to the address checked for it.
        limits=httpx.Limits(max_keepalive_connections=0),
        headers={"User-Agent": USER_AGENT, "Accept": _ACCEPT, "Accept-Encoding": "gzip, deflate"},
    ) as client:
        current = validate_url(url, allowed_hosts=allowed)
        for _hop in range(MAX_REDIRECTS + 1):
            address = await resolve_checked(current, allowed_hosts=allowed, resolver=resolver)
            status, location, content_type, body = await _request_hop(
                client, current, address, settings.fetch_max_bytes
            )
            if location is None and status in _REDIRECT_CODES:
                raise FetchError("redirect without a location")
            if location is None:
                return _Download(current.url, content_type, body)
            try:
                target = urljoin(current.url, location)
            except ValueError:  # e.g. "http://[bad/": any page can send a broken header
                raise FetchError("invalid redirect location") from None
            current = validate_url(target, allowed_hosts=allowed)
    raise FetchError("too many redirects")


async def fetch_page(
    url: str,
    settings: Settings,
    *,
    resolver: Resolver | None = None,
    max_chars: int | None = MAX_TEXT_CHARS,
) -> FetchedPage:
    """Fetch `url` and return its readable text, or raise `FetchError` with a safe message.

    The text is cut to `max_chars` (None: the whole text, which the body cap bounds)."""
    try:
        # One deadline for all network work (slow-drip servers defeat per-read timeouts);
        # extraction comes after, in a thread, and is not cut short halfway.
        async with asyncio.timeout(settings.fetch_timeout_seconds):
            download = await _download(url, settings, resolver)
    except FetchError:
        raise
    except UnsafeURLError as exc:
        raise FetchError(str(exc)) from None
    except (TimeoutError, httpx.TimeoutException):
        raise FetchError("request timed out") from None
    except (httpx.HTTPError, httpx.InvalidURL, HostResolutionError, OSError, ssl.SSLError):
        raise FetchError("network error while fetching URL") from None

    media, charset = _media_type(download.content_type, download.body[:512])
    if media not in _ACCEPTED_TYPES:
        raise FetchError(f"unsupported content type {media[:60]}")
    try:
        extracted = await asyncio.to_thread(extract_content, download.body, media, charset)
    except Exception:  # hostile bytes can break any parser; the page is just unreadable
        raise FetchError("could not extract readable text from the page") from None
    return FetchedPage(
        url=url,
        final_url=download.final_url,
        title=extracted.title or download.final_url,
        text=extracted.text if max_chars is None else clip(extracted.text, max_chars),
        content_type=media,
    )


__all__ = ["MAX_TEXT_CHARS", "FetchError", "FetchedPage", "fetch_page"]
