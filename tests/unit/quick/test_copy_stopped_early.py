"""A quick answer that starts copying a search result is stopped there and asked again once.

Seen on the local 1.5B model over the Apache httpd manual: three answers in five were the
results written back, header line first, each read to the 600-token cap before the copy was
taken out again.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool

from engine.config import settings_from_mapping
from engine.middleware.retry import RetryPolicy
from engine.models.compat.reply_watch import STOPPED_EARLY, stop_reply_when
from engine.models.factory import make_chat_model
from engine.quick.answer import QUOTED_INSTEAD
from engine.quick.budget import SYNTHESIS_ANCHOR
from engine.quick.graph import COPY_NOTICE, build_quick_graph, final_answer
from engine.sourcing.echo import copying_results
from engine.sourcing.source_numbers import SourceCatalog
from tests.fixtures.openai_server import OpenAIServer
from tests.unit.quick.quick_doubles import (
    RecordingChatModel,
    calls_message,
    passages_search,
    search,
)

EVENT = (
    "event - Apache HTTP Server Version 2.4",
    "event.html",
    "MaxRequestWorkers was called MaxClients before version 2.3.13.",
)
ALIAS = (
    "mod_alias - Apache HTTP Server Version 2.4",
    "mod_alias.html",
    "The Redirect directive maps an old URL into a new one by asking the client to refetch.",
)
QUESTION = "Before which httpd version was MaxRequestWorkers called MaxClients?"
COPY = f"[1] {EVENT[0]}\nDocument: {EVENT[1]}\n{EVENT[2]}\n\n[2] {ALIAS[0]}\n{ALIAS[2]}"
OWN = "It was called MaxClients before version 2.3.13 [1]."


def search_tool() -> list[BaseTool]:
    return passages_search(EVENT, ALIAS)


async def _run(replies: list[object]) -> tuple[str, RecordingChatModel]:
    model = RecordingChatModel.sequence([calls_message(search(QUESTION)), *replies])
    graph = build_quick_graph(model, search_tool(), settings_from_mapping({}))
    state = await graph.ainvoke({"messages": [HumanMessage(QUESTION)]})
    return final_answer(state), model


def _catalog() -> SourceCatalog:
    catalog = SourceCatalog({})
    for title, key, _passage in (EVENT, ALIAS):
        catalog.number_for(title, key)
    return catalog


async def test_a_copied_reply_is_asked_again_and_the_answer_of_its_own_is_kept() -> None:
    answer, model = await _run([COPY, OWN])

    assert answer.startswith(OWN)
    assert "mod_alias" not in answer.split("##")[0]
    retry = model.calls[-1].messages
    assert COPY_NOTICE in str(retry[-1].content) and QUESTION in str(retry[-1].content)
    # The same request as before, the notice after it: a server's prompt cache still holds it.
    assert [m.content for m in retry[:-1]] == [m.content for m in model.calls[-2].messages]
    assert len(model.calls) == 3


async def test_a_second_copy_is_asked_once_more_to_answer_now_with_the_same_tools_bound() -> None:
    answer, model = await _run([COPY, COPY, OWN])

    assert answer.startswith(OWN)
    last, before = model.calls[-1], model.calls[-2]
    assert SYNTHESIS_ANCHOR in str(last.messages[-1].content)
    # The tool list stays in the prompt, so a server's cached prompt still matches it.
    assert last.bound_tools == before.bound_tools == ("search_web",)
    assert [m.content for m in last.messages[:-1]] == [m.content for m in before.messages[:-2]]


async def test_a_third_copy_is_not_asked_again_but_quoted() -> None:
    answer, model = await _run([COPY, COPY, COPY])

    assert len(model.calls) == 4
    assert answer.startswith(QUOTED_INSTEAD)
    assert "MaxClients before version 2.3.13 [1]." in answer


async def test_a_search_asked_for_instead_of_the_answer_leaves_the_copy_to_be_quoted() -> None:
    another_search = calls_message(search("MaxClients rename"))
    answer, model = await _run([COPY, another_search, another_search])

    assert len(model.calls) == 4
    assert answer.startswith(QUOTED_INSTEAD)


async def test_an_answer_of_its_own_is_asked_once() -> None:
    answer, model = await _run([OWN])

    assert answer.startswith(OWN)
    assert len(model.calls) == 2


def test_the_watch_fires_on_a_finished_header_line_of_a_shown_result() -> None:
    copying = copying_results(_catalog())

    assert copying(f"[1] {EVENT[0]}\nDocument")
    assert copying(f"{OWN}\n\n[2] {ALIAS[0]}\n")
    # Not yet: the line may still become a sentence of the answer's own.
    assert not copying(f"[1] {EVENT[0]}")
    assert not copying(f"{OWN}\n\n[1, 2] Both pages agree\nIt was renamed.")
    # A references list the answer writes is its own.
    assert not copying(f"{OWN}\n\n## References\n\n[1] {EVENT[0]}\n[2] {ALIAS[0]}\n")


def _writer(llm: OpenAIServer, tmp_path: Path):
    settings = settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "offline-over-http",
            "ORCHESTRATOR_BASE_URL": llm.base_url,
            "MODEL_MAX_INPUT_TOKENS": "4096",
            "MODEL_TOOL_CALLING": "native",
            "MODEL_STRUCTURED_OUTPUT": "json_schema",
            "DATA_DIR": str(tmp_path),
            "LLM_TIMEOUT_SECONDS": "5",
        }
    )
    model = make_chat_model(settings, "writer")
    model.endpoint.transport.policy = RetryPolicy(max_retries=0)
    return model


async def test_a_watched_stream_ends_where_the_watch_fires(tmp_path: Path) -> None:
    paragraph = " ".join(f"Sentence {n} says what cancellation does to a task." for n in range(9))
    prompt = [HumanMessage(content=paragraph)]
    with OpenAIServer() as llm:
        whole = await _writer(llm, tmp_path).ainvoke(prompt)
        with stop_reply_when(lambda text: len(text) > 40):
            cut = await _writer(llm, tmp_path).ainvoke(prompt)
        sent = len(llm.requests)

    whole_text, cut_text = str(whole.content), str(cut.content)
    assert len(whole_text) > 120
    assert 40 < len(cut_text) < len(whole_text)
    assert whole_text.startswith(cut_text)
    assert cut.response_metadata["finish_reason"] == STOPPED_EARLY
    # Stopped on purpose: not a reply cut short by the server, so not asked again.
    assert sent == 2
