"""The replay server, driven by the real ChatOpenAI client (plain JSON and SSE)."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from tests.fixtures.replay_server import (
    ReplayServer,
    completion_from_stream,
    stream_from_completion,
)
from tests.fixtures.transcripts import Exchange, ReplayBook, save_cassette

QUESTION = "How do you cancel an asyncio task?"
ANSWER = "Call Task.cancel(); the task sees asyncio.CancelledError at its next await [1]."


@tool
def search_web(query: str) -> str:
    """Search the documents."""
    return query


def _model(base_url: str, **kwargs) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=base_url, api_key="x", model="local", max_retries=0, timeout=5, **kwargs
    )


def _request_of(call) -> dict:
    """The request body ChatOpenAI sends for `call(model)` (captured by an empty replay)."""
    with ReplayServer(ReplayBook([])) as empty:
        with pytest.raises(openai.InternalServerError):
            call(_model(empty.base_url))
        return empty.requests[-1]


def _completion(message: dict, finish_reason: str = "stop") -> dict:
    return {
        "id": "chatcmpl-rec1",
        "object": "chat.completion",
        "created": 1,
        "model": "qwen-local",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
    }


TOOL_CALL = {
    "id": "call_rec42",
    "type": "function",
    "function": {"name": "search_web", "arguments": '{"query": "asyncio cancel task"}'},
}


def _ask(model):
    return model.invoke(QUESTION)


def _ask_with_tools(model):
    return model.bind_tools([search_web], tool_choice="search_web").invoke(QUESTION)


def _streamed(model, call=None) -> AIMessage:
    chunks = list(model.stream(QUESTION)) if call is None else list(call(model))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


@pytest.fixture
def text_cassette(tmp_path):
    body = _request_of(_ask)
    exchange = Exchange(
        request=body, response=_completion({"role": "assistant", "content": ANSWER})
    )
    return save_cassette(tmp_path / "text.jsonl", [exchange])


@pytest.fixture
def tool_cassette(tmp_path):
    body = _request_of(_ask_with_tools)
    message = {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}
    exchange = Exchange(request=body, response=_completion(message, "tool_calls"))
    return save_cassette(tmp_path / "tool.jsonl", [exchange])


def test_plain_completion_is_replayed(text_cassette):
    with ReplayServer(text_cassette, strict=True) as llm:
        reply = _ask(_model(llm.base_url))
        assert reply.content == ANSWER
        assert reply.usage_metadata["total_tokens"] == 42
        assert llm.match_kinds() == ["exact"]
        assert llm.requests[0]["messages"][0]["content"] == QUESTION


def test_json_recording_is_streamed_as_sse(text_cassette):
    with ReplayServer(text_cassette, strict=True) as llm:
        model = _model(llm.base_url, stream_usage=True)
        chunks = list(model.stream(QUESTION))
        assert len(chunks) > 3  # really delivered in pieces
        total = _streamed(model)
        assert total.content == ANSWER
        assert total.usage_metadata["total_tokens"] == 42
        assert llm.match_kinds() == ["exact", "exact"]
        assert llm.requests[0]["stream"] is True


def test_recorded_tool_call_plain_and_streamed(tool_cassette):
    with ReplayServer(tool_cassette, strict=True) as llm:
        model = _model(llm.base_url)
        reply = _ask_with_tools(model)
        assert reply.tool_calls == [
            {
                "name": "search_web",
                "args": {"query": "asyncio cancel task"},
                "id": "call_rec42",
                "type": "tool_call",
            }
        ]
        bound = model.bind_tools([search_web], tool_choice="search_web")
        streamed = _streamed(model, lambda _m: bound.stream(QUESTION))
        assert streamed.tool_calls == reply.tool_calls
        assert llm.match_kinds() == ["exact", "exact"]


def test_stream_recording_is_assembled_for_a_plain_request(tmp_path):
    body = _request_of(_ask_with_tools)
    base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "q"}
    pieces = [
        {"role": "assistant", "content": None},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_s1",
                    "type": "function",
                    "function": {"name": "search_web", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"query": '}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"cancel"}'}}]},
    ]
    stream = [
        {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in pieces
    ]
    stream.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    stream.append(
        {
            **base,
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
        }
    )
    path = save_cassette(tmp_path / "s.jsonl", [Exchange(request=body, stream=stream)])
    with ReplayServer(path) as llm:
        model = _model(llm.base_url)
        plain = _ask_with_tools(model)
        bound = model.bind_tools([search_web], tool_choice="search_web")
        streamed = _streamed(model, lambda _m: bound.stream(QUESTION))
    expected = [
        {"name": "search_web", "args": {"query": "cancel"}, "id": "call_s1", "type": "tool_call"}
    ]
    assert plain.tool_calls == expected
    assert plain.usage_metadata["total_tokens"] == 8
    assert streamed.tool_calls == expected


def test_recorded_http_error_is_replayed(tmp_path):
    body = _request_of(_ask)
    error = {"error": {"message": "response_format json_schema unsupported", "type": "server"}}
    path = save_cassette(tmp_path / "e.jsonl", [Exchange(request=body, status=500, response=error)])
    with ReplayServer(path) as llm:
        with pytest.raises(openai.InternalServerError) as caught:
            _ask(_model(llm.base_url))
        assert caught.value.status_code == 500
        assert "json_schema unsupported" in str(caught.value)
        assert llm.match_kinds() == ["exact"]


def test_no_match_is_a_500_naming_the_reason(text_cassette):
    with ReplayServer(text_cassette) as llm:
        with pytest.raises(openai.InternalServerError):
            _ask_with_tools(_model(llm.base_url))
        assert llm.match_kinds() == ["none"]
        response = httpx.post(
            f"{llm.base_url}/chat/completions",
            json={
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]
            },
        )
        assert response.status_code == 500
        error = response.json()["error"]
        assert error["type"] == "replay_no_match"
        assert "no exact match" in error["message"] or "no recorded" in error["message"]
        assert len(llm.unmatched) == 2
        assert "closest #0" in llm.describe_unmatched()


def test_strict_refuses_what_lenient_serves_by_shape(text_cassette):
    other = "Which exception does a cancelled task see?"
    with ReplayServer(text_cassette, strict=True) as strict:
        with pytest.raises(openai.InternalServerError) as caught:
            _model(strict.base_url).invoke(other)
        assert "strict" in str(caught.value)
        assert strict.match_kinds() == ["none"]
    with ReplayServer(text_cassette) as lenient:
        assert _model(lenient.base_url).invoke(other).content == ANSWER
        assert lenient.match_kinds() == ["shape"]
        assert "first differing message 0" in lenient.match_log[0].hint


def test_models_endpoint_names_the_recorded_model(text_cassette):
    with ReplayServer(text_cassette) as llm:
        data = httpx.get(f"{llm.base_url}/models").json()
        assert data["data"][0]["id"] == "qwen-local"


def test_stream_synthesis_and_assembly_are_inverse():
    completion = _completion(
        {
            "role": "assistant",
            "content": "Some words to split up into a few parts.",
            "tool_calls": [TOOL_CALL],
        },
        "tool_calls",
    )
    chunks = stream_from_completion(completion, include_usage=True)
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 42
    rebuilt = completion_from_stream(json.loads(json.dumps(chunks)))
    assert rebuilt["choices"][0]["message"] == {**completion["choices"][0]["message"]}
    assert rebuilt["choices"][0]["finish_reason"] == "tool_calls"
    assert rebuilt["usage"] == completion["usage"]
