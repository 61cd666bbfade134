"""How a ReplayBook chooses a recorded exchange: exact, then shape, else none."""

from __future__ import annotations

from tests.fixtures.transcripts import Exchange, ReplayBook

SEARCH_TOOL = {"type": "function", "function": {"name": "search_web", "parameters": {}}}
THINK_TOOL = {"type": "function", "function": {"name": "think_tool", "parameters": {}}}


def _body(question: str, *, tools=(SEARCH_TOOL,), tool_choice=None, fmt=None, system="sys"):
    body = {
        "model": "local",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": question},
        ],
    }
    if tools:
        body["tools"] = list(tools)
    if tool_choice is not None:
        body["tool_choice"] = tool_choice
    if fmt is not None:
        body["response_format"] = {"type": fmt}
    return body


def _exchange(body, answer: str, status: int = 200) -> Exchange:
    response = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": "stop",
            }
        ],
    }
    return Exchange(request=body, status=status, response=response)


def _answer(match) -> str:
    return match.exchange.response["choices"][0]["message"]["content"]


def test_exact_match_ignores_dates_and_stream_flags():
    book = ReplayBook([_exchange(_body("q", system="Today is Monday, November 23, 2026."), "a")])
    live = _body("q", system="Today is Friday, January 8, 2027.")
    live["stream"] = True
    match = book.match(live)
    assert match.kind == "exact" and match.index == 0
    assert book.kinds() == ["exact"]


def test_identical_keys_are_served_in_recorded_order_then_the_last_repeats():
    same = _body("q")
    book = ReplayBook(
        [
            _exchange(same, "first", 500),
            _exchange(same, "second"),
            _exchange(_body("other"), "other"),
        ]
    )
    answers = [_answer(book.match(_body("q"))) for _ in range(4)]
    assert answers == ["first", "second", "second", "second"]
    assert book.kinds() == ["exact"] * 4


def test_shape_match_takes_the_earliest_unserved_exchange_of_that_shape():
    book = ReplayBook(
        [_exchange(_body("one"), "1"), _exchange(_body("two"), "2"), _exchange(_body("three"), "3")]
    )
    assert _answer(book.match(_body("two"))) == "2"  # exact, marks #1 served
    first = book.match(_body("something new"))
    second = book.match(_body("something else"))
    assert (first.kind, first.index) == ("shape", 0)
    assert (second.kind, second.index) == ("shape", 2)
    third = book.match(_body("and another"))
    assert third.kind == "none"
    assert "already served" in third.reason
    assert book.kinds() == ["exact", "shape", "shape", "none"]
    assert book.counts() == {"exact": 1, "shape": 2, "none": 1}


def test_shape_needs_same_roles_tools_format_and_tool_choice():
    forced = {"type": "function", "function": {"name": "search_web"}}
    book = ReplayBook([_exchange(_body("q", tool_choice=forced, fmt="json_object"), "a")])
    assert book.match(_body("x", tool_choice=forced, fmt="text")).kind == "none"
    assert book.match(_body("x", tool_choice="auto", fmt="json_object")).kind == "none"
    assert (
        book.match(
            _body("x", tools=(SEARCH_TOOL, THINK_TOOL), tool_choice=forced, fmt="json_object")
        ).kind
        == "none"
    )
    longer = _body("x", tool_choice=forced, fmt="json_object")
    longer["messages"].append({"role": "assistant", "content": "hm"})
    assert book.match(longer).kind == "none"
    assert book.match(_body("x", tool_choice=forced, fmt="json_object")).kind == "shape"


def test_strict_book_refuses_shape_matches():
    book = ReplayBook([_exchange(_body("q"), "a")], strict=True)
    refused = book.match(_body("different"))
    assert refused.kind == "none" and refused.exchange is None
    assert "strict" in refused.reason
    assert book.match(_body("q")).kind == "exact"


def test_unmatched_requests_carry_a_hint_at_the_first_differing_message():
    recorded = _body("What does Task.cancel() do?")
    recorded["messages"].append({"role": "assistant", "content": "It requests cancellation."})
    recorded["messages"].append({"role": "user", "content": "And shield()?"})
    book = ReplayBook(
        [_exchange(recorded, "a"), _exchange(_body("zzz", tools=()), "b")], strict=True
    )
    live = _body("What does Task.cancel() do?")
    live["messages"].append({"role": "assistant", "content": "It requests cancellation."})
    live["messages"].append({"role": "user", "content": "And gather()?"})
    book.match(live)
    assert len(book.unmatched) == 1
    hint = book.unmatched[0].hint
    assert "closest #0" in hint and "message 3" in hint
    assert "gather" in hint and "shield" in hint
    assert book.unmatched[0].request["messages"][3]["content"] == "And gather()?"


def test_empty_book_matches_nothing():
    book = ReplayBook([])
    match = book.match(_body("q"))
    assert match.kind == "none" and "empty" in match.hint
