"""The network-shaped stack on 127.0.0.1: chat completions, Exa search and a web server."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.config import Settings, settings_from_mapping
from engine.tools.extract import extract_html
from engine.tools.url_safety import use_resolver
from tests.e2e.harness import flat
from tests.fixtures.exa_server import ExaServer, _document
from tests.fixtures.openai_server import OpenAIServer
from tests.fixtures.web_server import TEST_RESOLVER, WebServer, corpus_pages

REMOTE_MODEL = "offline-policy"


@dataclass
class RemoteStack:
    llm: OpenAIServer
    exa: ExaServer
    web: WebServer

    def settings(self, data_dir: Path, **overrides: str) -> Settings:
        values = {
            "DATA_DIR": str(data_dir),
            "ORCHESTRATOR_MODEL": REMOTE_MODEL,
            "ORCHESTRATOR_BASE_URL": self.llm.base_url,
            "OPENAI_API_KEY": "x",
            "LLM_TIMEOUT_SECONDS": "5",
            # The fixture server speaks OpenAI's native tools and json_schema (its offline
            # policy cannot answer the generic capability probes).
            "MODEL_TOOL_CALLING": "native",
            "MODEL_STRUCTURED_OUTPUT": "json_schema",
            "SEARCH_PROVIDER": "exa",
            "EXA_API_KEY": self.exa.api_key,
            "EXA_BASE_URL": self.exa.base_url,
            "FETCH_ALLOWED_HOSTS": self.web.allowed_host,
            **overrides,
        }
        return settings_from_mapping(values)


@contextlib.contextmanager
def remote_stack() -> Iterator[RemoteStack]:
    """Start the three servers and map the invented `*.test` hosts to 127.0.0.1."""
    with (
        WebServer() as web,
        ExaServer(web_port=web.port) as exa,
        OpenAIServer() as llm,
        use_resolver(TEST_RESOLVER),
    ):
        yield RemoteStack(llm=llm, exa=exa, web=web)


def corpus_texts() -> list[str]:
    """Every form in which a corpus page reaches a model: Exa's text and the fetched text."""
    texts = []
    for name, page in corpus_pages().items():
        texts.append(flat(_document(name, page).text))
        texts.append(flat(extract_html(page).text))
    return texts
