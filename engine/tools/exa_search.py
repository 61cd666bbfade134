"""The Exa search provider (exa-py `AsyncExa`, base URL configurable for the offline server).

Failures become `SearchError`s with one clear, safe sentence: a rejected key, rate limiting,
a server error, a timeout or a network failure. A 429 is retried after its `Retry-After`
delay when that delay is at most `RETRY_AFTER_CAP_SECONDS`; a longer or missing delay fails
at once rather than stalling the researcher.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from engine.config import Settings
from engine.text.retry_after import parse_retry_after
from engine.tools.search_errors import SearchError

DEFAULT_EXA_BASE_URL = "https://api.exa.ai"
RETRY_AFTER_CAP_SECONDS = 10.0
MAX_ATTEMPTS = 3
TEXT_CHARS_PER_RESULT = 4000
_STATUS_IN_MESSAGE = re.compile(r"status code (\d{3})")


class _RateLimited(Exception):
    def __init__(self, retry_after: float | None) -> None:
        self.retry_after = retry_after


def _status_error(status: int) -> SearchError:
    if status in (401, 403):
        return SearchError(
            f"search provider rejected the API key (HTTP {status}); check EXA_API_KEY"
        )
    if status == 429:
        return SearchError("search provider is rate limiting requests (HTTP 429); try again later")
    if status >= 500:
        return SearchError(f"search provider returned HTTP {status}; try again later")
    return SearchError(f"search provider refused the request (HTTP {status})")


class ExaSearchProvider:
    """Web search through Exa."""

    name = "exa"

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        retry_after_cap: float = RETRY_AFTER_CAP_SECONDS,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._retry_after_cap = retry_after_cap

    async def search(self, query: str, limit: int) -> list[Any]:
        if self.settings.exa_api_key is None:
            raise SearchError("EXA_API_KEY is not set; set it or choose SEARCH_PROVIDER=local")
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return await self._search_once(query, limit)
            except _RateLimited as limited:
                delay = limited.retry_after
                if delay is None or delay > self._retry_after_cap or attempt == MAX_ATTEMPTS:
                    raise _status_error(429) from None
                await self._sleep(delay)
        raise _status_error(429)  # unreachable: the loop returns or raises

    async def _search_once(self, query: str, limit: int) -> list[Any]:
        from exa_py import AsyncExa
        from exa_py.errors import ExaTimeoutError

        seen: dict[str, Any] = {}

        async def remember(response: httpx.Response) -> None:
            seen["status"] = response.status_code
            seen["retry_after"] = response.headers.get("retry-after")

        class _ObservedExa(AsyncExa):
            # exa-py reports HTTP errors as a bare ValueError without headers; a response hook
            # keeps the status and Retry-After so failures map to precise messages.
            @property
            def client(self) -> httpx.AsyncClient:
                if self._client is None:
                    self._client = httpx.AsyncClient(
                        base_url=self.base_url,
                        headers=self.headers,
                        timeout=self.timeout,
                        event_hooks={"response": [remember]},
                    )
                return self._client

        assert self.settings.exa_api_key is not None
        timeout = self.settings.fetch_timeout_seconds
        exa = _ObservedExa(
            self.settings.exa_api_key.get_secret_value(),
            api_base=self.settings.exa_base_url or DEFAULT_EXA_BASE_URL,
            timeout=timeout,
        )
        try:
            async with exa, asyncio.timeout(timeout * 2):
                response = await exa.search(
                    query,
                    num_results=limit,
                    contents={"text": {"max_characters": TEXT_CHARS_PER_RESULT}},
                )
        except (ExaTimeoutError, httpx.TimeoutException, TimeoutError):
            raise SearchError("search provider timed out; try again later") from None
        except httpx.HTTPError:
            raise SearchError("network error while contacting the search provider") from None
        except (ValueError, KeyError, TypeError) as exc:
            status = seen.get("status")
            if status is None:
                match = _STATUS_IN_MESSAGE.search(str(exc))
                status = int(match.group(1)) if match else None
            if status == 429:
                raise _RateLimited(parse_retry_after(seen.get("retry_after"))) from None
            if isinstance(status, int) and status >= 400:
                raise _status_error(status) from None
            raise SearchError("search provider returned an invalid response") from None
        return list(response.results)
