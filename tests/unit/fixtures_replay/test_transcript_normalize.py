"""Request normalization, redaction and the cassette file format."""

from __future__ import annotations

import json

from tests.fixtures.transcripts import (
    Exchange,
    header_line,
    host_port,
    load_cassette,
    normalize_request,
    normalize_text,
    redact,
    request_key,
    save_cassette,
)


def _request(system: str, *, call_id: str = "call_abc123XYZ", **extra):
    body = {
        "model": "local",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": "How do I cancel a task?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "search_web", "arguments": '{"query": "cancel"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": "Task.cancel() requests..."},
        ],
        "tools": [{"type": "function", "function": {"name": "search_web", "parameters": {}}}],
    }
    body.update(extra)
    return body


def test_dates_times_and_ids_become_placeholders():
    text = normalize_text(
        "Today is Monday, November 23, 2026 (2026-11-23), also 23 November 2026 and "
        "Nov 23rd, 2026; stamp 2026-11-23T10:15:42Z; at 10:45 or 3:05 PM. "
        "Session 5f2b9c0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f, run 9f86d081884c7d65, "
        "call call_Xy12abCD and chatcmpl-8abcXYZ."
    )
    assert "2026" not in text
    assert "10:45" not in text and "3:05" not in text
    assert "5f2b9c0e" not in text and "9f86d081884c7d65" not in text
    assert "call_Xy12abCD" not in text and "chatcmpl-8abcXYZ" not in text
    assert text.count("<date>") == 4
    assert "<datetime>" in text
    assert "<uuid#1>" in text and "<hex#1>" in text and "<call#1>" in text


def test_ordinary_text_is_kept():
    text = "Use loop.call_soon_threadsafe() or call_later; Python 3.12 ships 1234 tests at 8:1."
    assert normalize_text(text) == text


def test_volatile_keys_are_dropped_and_content_kept():
    body = _request(
        "You are a researcher.",
        stream=True,
        stream_options={"include_usage": True},
        user="u-1",
        seed=7,
        n=1,
        max_tokens=512,
        temperature=0,
    )
    normalized = normalize_request(body)
    for key in ("stream", "stream_options", "user", "seed", "n", "model"):
        assert key not in normalized
    assert normalized["max_tokens"] == 512
    assert normalized["messages"][1]["content"] == "How do I cancel a task?"


def test_requests_differing_only_in_volatile_parts_share_a_key():
    first = _request("Today is Monday, November 23, 2026.", call_id="call_aaa111", stream=True)
    second = _request("Today is Tuesday, December 1, 2026.", call_id="call_zzz999", seed=3)
    assert request_key(first) == request_key(second)
    changed = _request("Today is Tuesday, December 1, 2026. Be brief.")
    assert request_key(changed) != request_key(first)


def test_tool_call_ids_keep_their_pairing():
    body = _request("s")
    body["messages"][2]["tool_calls"].append(
        {"id": "call_second2", "type": "function", "function": {"name": "think", "arguments": "{}"}}
    )
    body["messages"].append({"role": "tool", "tool_call_id": "call_second2", "content": "ok"})
    swapped = json.loads(json.dumps(body))
    swapped["messages"][3]["tool_call_id"], swapped["messages"][4]["tool_call_id"] = (
        "call_second2",
        "call_abc123XYZ",
    )
    normalized = normalize_request(body)
    assert normalized["messages"][2]["tool_calls"][0]["id"] == "<call#1>"
    assert normalized["messages"][3]["tool_call_id"] == "<call#1>"
    assert normalized["messages"][4]["tool_call_id"] == "<call#2>"
    assert request_key(body) != request_key(swapped)


def test_redact_drops_credentials_anywhere():
    data = {
        "api_key": "sk-live-0123456789abcdefghij",
        "nested": [{"Authorization": "Bearer abc"}, {"x-api-key": "k", "keep": "yes"}],
        "note": "header was Bearer sk-0123456789abcdefghijklmn",
        "OPENAI_API_KEY": "sk-x",
    }
    cleaned = redact(data)
    text = json.dumps(cleaned)
    assert "api_key" not in text.lower() and "authorization" not in text.lower()
    assert "0123456789abcdefghij" not in text
    assert cleaned["nested"][1] == {"keep": "yes"}


def test_base_url_is_reduced_to_host_and_port():
    assert host_port("http://user:pw@127.0.0.1:8081/v1") == "127.0.0.1:8081"
    assert host_port("https://api.openai.com/v1") == "api.openai.com:443"
    header = header_line("x", base_url="http://user:secret@localhost:9000/v1?key=1")
    assert header["base_url_redacted"] == "localhost:9000"
    assert "secret" not in json.dumps(header)


def test_cassette_round_trips_through_a_file(tmp_path):
    exchanges = [
        Exchange(
            request={"messages": [], "api_key": "sk-0123456789abcdefghijkl"},
            status=200,
            response={"choices": []},
            elapsed_seconds=1.23456,
        ),
        Exchange(request={"messages": []}, status=200, stream=[{"choices": []}]),
    ]
    path = save_cassette(tmp_path / "c.jsonl", exchanges, header_line("c", model="m"))
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["cassette"] == "c"
    assert "api_key" not in path.read_text()
    loaded = load_cassette(path)
    assert loaded.name == "c" and len(loaded) == 2
    assert loaded.exchanges[0].elapsed_seconds == 1.235
    assert loaded.exchanges[1].streamed and not loaded.exchanges[0].streamed
