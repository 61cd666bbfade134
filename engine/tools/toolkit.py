"""The researchers' LangChain tools: search_web, fetch_url and think_tool.

Each tool records every URL or document key it returns in the session's source registry
before the model sees the text, reports itself with `ToolCalled` events (started, then
succeeded or failed), and never raises: a failure is one clear sentence the model can act on.

A page or document longer than `MAX_TEXT_CHARS` is not cut to its head: `fetch_url` shows the
passages that best match the research unit's focus (else the latest search made through the
same tools), in document order with `[…]` between them (engine/tools/rerank.py). The registry
keeps exactly the text the model was shown.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from engine.config import Settings
from engine.emit import emit
from engine.events import ToolCalled
from engine.tools.extract import clip
from engine.tools.fetch import MAX_TEXT_CHARS, FetchError, fetch_page
from engine.tools.local_index import LocalIndex
from engine.tools.preprocess import format_results
from engine.tools.rerank import select_passages
from engine.tools.search import SourceRecorder, clean_query, provider_for, search
from engine.tools.search_errors import SearchError

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

SUMMARY_CHARS = 160


def _short(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _CallReport:
    """Emits the started / succeeded / failed events of one tool call."""

    def __init__(self, tool: str, unit_id: str | None, arguments: str) -> None:
        self.tool = tool
        self.unit_id = unit_id
        self.arguments = _short(arguments)
        self.call_id = f"{tool}-{uuid.uuid4().hex[:12]}"
        self.started = time.perf_counter()
        self._emit("started")

    def _emit(self, status: str, summary: str = "", error: str | None = None) -> None:
        duration = None if status == "started" else round(time.perf_counter() - self.started, 4)
        emit(
            ToolCalled(
                tool=self.tool,
                call_id=self.call_id,
                unit_id=self.unit_id,
                status=status,
                arguments=self.arguments,
                result_summary=_short(summary),
                error=error,
                duration_seconds=duration,
            )
        )

    def succeeded(self, summary: str) -> None:
        self._emit("succeeded", summary)

    def failed(self, error: str) -> None:
        self._emit("failed", error=_short(error))


class SearchWebInput(BaseModel):
    query: str = Field(description="What to search for, in plain words (at most 1000 chars).")
    max_results: int | None = Field(
        default=None, ge=1, le=100, description="How many results to return (optional)."
    )


class FetchUrlInput(BaseModel):
    url: str = Field(
        description="An http(s) URL from search results, or a local document key such as "
        "'asyncio-task.html' or 'guide.pdf, p.3'."
    )


class ThinkInput(BaseModel):
    reflection: str = Field(
        description="Your reasoning: what you found, what is missing, what to do next."
    )


def _looks_like_document_key(value: str) -> bool:
    return "://" not in value and not value.lower().startswith(("http:", "https:"))


async def _read_document(key: str, settings: Settings) -> tuple[str, str] | None:
    """A local document's title and whole text by its key, or None."""
    index = LocalIndex(
        settings.index_db_path,
        settings.resolved_documents_path,
        max_file_bytes=settings.index_max_file_bytes,
    )
    document = await asyncio.to_thread(index.document, key)
    if document is None and settings.resolved_search_provider == "local":
        # Only a local-search session may pay for (re)indexing to find a key.
        await asyncio.to_thread(index.ensure_fresh)
        document = await asyncio.to_thread(index.document, key)
    if document is None:
        return None
    return document.title, document.text


async def shown_text(text: str, query: str | None, *, document: bool = False) -> str:
    """What the model reads of a fetched text: all of it when it fits `MAX_TEXT_CHARS`, else
    the passages that best match `query`, else (no query) its head as before reranking."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    if not query:
        return text[:MAX_TEXT_CHARS] if document else clip(text, MAX_TEXT_CHARS)
    return await asyncio.to_thread(select_passages, text, query, MAX_TEXT_CHARS)


MIN_RESULTS_ASKED = 4


def build_research_tools(
    settings: Settings,
    registry: SourceRecorder,
    *,
    unit_id: str | None = None,
    focus: str | None = None,
) -> list[BaseTool]:
    """search_web (absent when the provider is `none`), fetch_url and think_tool.

    `focus` (the research unit's topic or question) is what a long fetched text is ranked
    against; without one, the latest query searched through these tools is.
    """
    from langchain_core.tools import StructuredTool

    calls = _ResearchTools(settings, registry, unit_id, focus)
    search_help = (
        "Search the local documents folder; results carry a 'Document:' key you can cite "
        "or read in full with fetch_url."
        if calls.provider_name == "local"
        else "Search the web; results carry a 'URL:' you can cite or read with fetch_url."
    )
    tools: list[BaseTool] = []
    if calls.provider_name != "none":
        tools.append(
            StructuredTool.from_function(
                coroutine=calls.search_web,
                name="search_web",
                description=f"{search_help} Returns numbered results with passages.",
                args_schema=SearchWebInput,
            )
        )
    tools.append(
        StructuredTool.from_function(
            coroutine=calls.fetch_url,
            name="fetch_url",
            description="Read a web page (http/https URL) or a local document key in full "
            f"(up to {MAX_TEXT_CHARS} characters of text).",
            args_schema=FetchUrlInput,
        )
    )
    tools.append(
        StructuredTool.from_function(
            coroutine=calls.think_tool,
            name="think_tool",
            description="Record your reasoning between searches: what you learned, what gaps "
            "remain, and whether to keep searching. Has no other effect.",
            args_schema=ThinkInput,
        )
    )
    return tools


class _ResearchTools:
    """What the tools of one research unit do, sharing its settings, registry and focus."""

    def __init__(
        self, settings: Settings, registry: SourceRecorder, unit_id: str | None, focus: str | None
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.unit_id = unit_id
        self.focus = focus
        self.provider_name = settings.resolved_search_provider
        self.searched: list[str] = []  # the latest search_web query, once there is one

    def fetch_focus(self) -> str | None:
        """What a long fetched text is ranked against: the focus, else the latest search."""
        if self.focus and self.focus.strip():
            return self.focus
        return self.searched[-1] if self.searched else None

    async def search_web(self, query: str, max_results: int | None = None) -> str:
        report = _CallReport("search_web", self.unit_id, query)
        try:
            shown, _ = clean_query(query)
            self.searched[:] = [shown]
            results = await search(
                query,
                self.settings,
                self.registry,
                # Small models ask for one result and then cannot answer: keep a floor.
                max_results=max(MIN_RESULTS_ASKED, max_results) if max_results else None,
                provider=provider_for(self.settings),
            )
        except SearchError as exc:
            report.failed(str(exc))
            return f"Search failed: {exc}"
        text = format_results(shown, results)
        report.succeeded(f"{len(results)} results")
        return text

    async def fetch_url(self, url: str) -> str:
        report = _CallReport("fetch_url", self.unit_id, url)
        target = (url or "").strip()
        if not target:
            report.failed("empty URL")
            return "Fetch failed: invalid URL: empty URL"
        if _looks_like_document_key(target):
            return await self._fetch_document(target, report)
        return await self._fetch_web(target, report)

    async def _fetch_document(self, target: str, report: _CallReport) -> str:
        """A local document by its key; a name that is not one is fetched from the web,
        unless search is local."""
        try:
            found = await _read_document(target, self.settings)
        except (OSError, FileNotFoundError):
            found = None
        if found is None and self.provider_name != "local":
            return await self._fetch_web(target, report)
        if found is None:
            error = "not an http(s) URL or a known document key"
            report.failed(error)
            return f"Fetch failed: {error}"
        title, full_text = found
        text = await shown_text(full_text, self.fetch_focus(), document=True)
        self.registry.add_document(target, title or None, text)
        report.succeeded(f"{len(text)} chars from {target}")
        return f"Fetched: {target}\nTitle: {title}\n\n{text}"

    async def _fetch_web(self, target: str, report: _CallReport) -> str:
        try:
            page = await fetch_page(target, self.settings, max_chars=None)
        except FetchError as exc:
            report.failed(str(exc))
            return f"Fetch failed: {exc}"
        text = await shown_text(page.text, self.fetch_focus())
        self.registry.add_url(page.final_url, page.title or None, text)
        if page.url != page.final_url:
            self.registry.add_url(page.url, page.title or None, text)
        report.succeeded(f"{len(text)} chars: {page.title}")
        return f"Fetched: {page.final_url}\nTitle: {page.title}\n\n{text}"

    async def think_tool(self, reflection: str) -> str:
        report = _CallReport("think_tool", self.unit_id, reflection)
        report.succeeded("reflection recorded")
        return f"Reflection recorded: {reflection}"
