"""CompatChatModel over the real ChatOpenAI client and HTTP: caps, retries, errors, fallbacks."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from engine.config import settings_from_mapping
from engine.middleware.retry import RetryPolicy
from engine.models.compat.errors import ModelCallError
from engine.models.compat.profile import ModelProfile
from engine.models.factory import make_chat_model
from engine.nodes.failures import sanitize_run_error
from tests.fixtures.openai_server import OpenAIServer

KEY = "sk-compat-secret-canary"


class Capital(BaseModel):
    city: str


async def _no_sleep(_: float) -> None:
    return None


def _model(llm: OpenAIServer, tmp_path: Path, **env: str):
    settings = settings_from_mapping(
        {
            "OPENAI_API_KEY": KEY,
            "ORCHESTRATOR_MODEL": "offline-over-http",
            "ORCHESTRATOR_BASE_URL": llm.base_url,
            "MODEL_MAX_INPUT_TOKENS": "4096",
            "MODEL_TOOL_CALLING": "native",
            "MODEL_STRUCTURED_OUTPUT": "json_schema",
            "DATA_DIR": str(tmp_path),
            "LLM_TIMEOUT_SECONDS": "5",
            **env,
        }
    )
    model = make_chat_model(settings, "writer")
    model.endpoint.transport.policy = RetryPolicy(max_retries=10, sleep=_no_sleep)
    return model


async def test_every_request_carries_a_role_sized_output_cap(tmp_path: Path) -> None:
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path)
        await model.ainvoke([HumanMessage(content="Say hello.")])
        body = llm.requests[-1]
    # The writer's cap (4096) shrinks to a quarter of this 4096-token window.
    assert body["max_tokens"] == 1024
    assert body["stream"] is True


async def test_a_broken_server_is_tried_three_times_then_named_without_the_key(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as llm:
        llm.fail("server_error", times=50)
        model = _model(llm, tmp_path)
        with pytest.raises(ModelCallError) as caught:
            await model.ainvoke([HumanMessage(content="Say hello.")])
        attempts = len(llm.requests)
    message = sanitize_run_error(caught.value)
    assert attempts <= 3
    assert "writer model at 127.0.0.1:" in message and "HTTP 500" in message
    assert KEY not in message and "/v1" not in message


async def test_rate_limits_are_waited_out(tmp_path: Path) -> None:
    with OpenAIServer() as llm:
        llm.fail("rate_limit", times=4, retry_after=0)
        model = _model(llm, tmp_path)
        reply = await model.ainvoke([HumanMessage(content="Say hello.")])
    assert reply.content


async def test_structured_output_falls_back_when_the_server_refuses_json_schema(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path)
        # The first json_schema request is refused (as llama-cpp-python does with HTTP 500).
        llm.fail("server_error", times=1)
        result = await model.with_structured_output(Capital, include_raw=True).ainvoke(
            [HumanMessage(content="Capital of France as JSON.")]
        )
        kinds = [(b.get("response_format") or {}).get("type") for b in llm.requests]
    assert kinds[0] == "json_schema" and kinds[-1] != "json_schema"
    assert model.endpoint.profile.structured_output == "json_object"
    assert result["raw"] is not None


def test_output_caps_shrink_with_the_window() -> None:
    assert ModelProfile(128_000).output_cap("writer") == 4096
    assert ModelProfile(4096).output_cap("writer") == 1024
    assert ModelProfile(1000).output_cap("researcher") == 250


async def test_a_stream_cut_short_is_asked_again_not_taken_as_the_answer(tmp_path: Path) -> None:
    with OpenAIServer() as llm:
        llm.fail("cut_short", times=1)
        model = _model(llm, tmp_path)
        reply = await model.ainvoke([HumanMessage(content="Say hello to the whole wide world.")])
        attempts = len(llm.requests)
    assert attempts == 2
    assert reply.response_metadata.get("finish_reason") == "stop"


async def test_a_retry_says_its_cause_first_and_logs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import engine.models.compat.progress

    events: list[object] = []
    monkeypatch.setattr(engine.models.compat.progress, "emit", events.append)
    with OpenAIServer() as llm:
        llm.fail("cut_short", times=1)
        model = _model(llm, tmp_path)
        # Where the log file's handler listens (the app sets it up; the test listens itself).
        engine_log = logging.getLogger("deepresearch")
        engine_log.addHandler(caplog.handler)
        try:
            await model.ainvoke([HumanMessage(content="Say hello to the whole wide world.")])
        finally:
            engine_log.removeHandler(caplog.handler)
    retries = [event for event in events if getattr(event, "state", "") == "retrying"]
    assert len(retries) == 1
    # A status line cut at 80 columns still shows why ("attempt 2 failed" alone said nothing).
    assert retries[0].detail.startswith("stopped answering midway")  # type: ignore[attr-defined]
    logged = [record.getMessage() for record in caplog.records]
    assert any("attempt 1 failed" in line and "stopped answering midway" in line for line in logged)
    assert not any(KEY in line for line in logged)


async def test_a_server_that_always_cuts_its_answers_short_is_named(tmp_path: Path) -> None:
    with OpenAIServer() as llm:
        llm.fail("cut_short", times=50)
        model = _model(llm, tmp_path)
        with pytest.raises(ModelCallError) as caught:
            await model.ainvoke([HumanMessage(content="Say hello to the whole wide world.")])
        attempts = len(llm.requests)
    assert attempts <= 3
    assert "stopped answering midway" in sanitize_run_error(caught.value)


async def test_structured_calls_report_their_tokens_to_usage_callbacks(tmp_path: Path) -> None:
    from engine.run.usage_tracker import UsageTracker
    from engine.schemas import ResearchBrief

    tracker = UsageTracker()
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path)
        structured = model.with_structured_output(ResearchBrief, include_raw=True)
        result = await structured.ainvoke(
            [HumanMessage(content="How do asyncio tasks get cancelled?")],
            config={"callbacks": [tracker]},
        )
    assert result["parsing_error"] is None and isinstance(result["parsed"], ResearchBrief)
    assert tracker.meter.spent.input_tokens > 0 and tracker.meter.spent.output_tokens > 0


async def test_a_slow_prompt_is_bounded_by_the_request_timeout_not_a_chunk_timer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The client library's own silence timer (120 s by default) is shortened here so that a
    # server still reading the prompt would trip it; only LLM_TIMEOUT_SECONDS may end a call.
    monkeypatch.setenv("LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S", "0.3")
    with OpenAIServer() as llm:
        llm.fail("slow_first_chunk", times=1, hang_seconds=1.0)
        model = _model(llm, tmp_path)
        reply = await model.ainvoke([HumanMessage(content="Say hello.")])
        attempts = len(llm.requests)
    assert reply.content and attempts == 1


async def test_a_half_pinned_profile_keeps_its_pin_and_caches_what_was_detected(
    tmp_path: Path,
) -> None:
    import json

    # This server answers tools in text only; the person pinned native tools anyway.
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path, MODEL_STRUCTURED_OUTPUT="auto")
        model.endpoint.profile = None  # nothing cached yet: the first call probes
        profile = await model.endpoint.resolved()
    assert profile.tool_calling == "native"
    assert profile.structured_output == "text"  # detected, not pinned
    cached = json.loads((tmp_path / "model_profiles.json").read_text(encoding="utf-8"))
    assert [entry["tool_calling"] for entry in cached.values()] == ["prompted"]


async def test_after_a_reply_is_cut_short_the_endpoint_gets_one_request_at_a_time(
    tmp_path: Path,
) -> None:
    import asyncio

    with OpenAIServer(delay_seconds=0.2) as llm:
        model = _model(llm, tmp_path)
        question = [HumanMessage(content="Say hello to the whole wide world.")]
        await asyncio.gather(model.ainvoke(question), model.ainvoke(question))
        assert llm.most_in_flight == 2  # a server that keeps up gets parallel requests
        llm.fail("cut_short", times=1)
        await model.ainvoke(question)
        before = llm.most_in_flight
        llm._llm.most_in_flight = 0
        await asyncio.gather(*(model.ainvoke(question) for _ in range(3)))
        after = llm.most_in_flight
    assert before == 2 and after == 1
    assert model.endpoint.transport.one_at_a_time


async def test_a_cut_beside_another_request_is_remembered_and_a_lone_cut_is_not(
    tmp_path: Path,
) -> None:
    import asyncio
    import json

    question = [HumanMessage(content="Say hello to the whole wide world.")]
    with OpenAIServer() as llm:
        alone = _model(llm, tmp_path / "alone")
        llm.fail("cut_short", times=1)
        await alone.ainvoke(question)  # nothing else in flight: perhaps the network
        assert alone.endpoint.transport.one_at_a_time  # for this session, to be safe
    assert not _model(llm, tmp_path / "alone").endpoint.transport.one_at_a_time

    # As llama-cpp-python serves: a request arriving while a reply streams ends that reply.
    with OpenAIServer(delay_seconds=1.0, single_slot=True) as llm:
        beside = _model(llm, tmp_path / "beside")
        await asyncio.gather(beside.ainvoke(question), beside.ainvoke(question))
        cuts = llm.cut  # each cuts the other once (the retry arrives while the other streams)
        assert cuts >= 1
        later = _model(llm, tmp_path / "beside")  # a later session, same endpoint
        assert later.endpoint.transport.one_at_a_time  # before its first call
        replies = await asyncio.gather(*(later.ainvoke(question) for _ in range(3)))
        assert llm.cut == cuts and all(reply.content for reply in replies)
    assert later.endpoint.profile is not None and later.endpoint.profile.one_at_a_time
    # Only the fact is written down: what the settings pin is not remembered as detected.
    cached = json.loads((tmp_path / "beside" / "model_profiles.json").read_text())
    assert list(cached.values()) == [{"one_at_a_time": True}]


def test_the_profile_cache_is_private(tmp_path: Path) -> None:
    from engine.models.compat.profile import store_detected

    settings = settings_from_mapping({"DATA_DIR": str(tmp_path / "data")})
    store_detected(settings, "127.0.0.1:8081|local", ModelProfile(16384, "prompted"))
    cache = tmp_path / "data" / "model_profiles.json"
    assert cache.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "data").stat().st_mode & 0o777 == 0o700


def test_each_client_has_its_own_connection_pool(tmp_path: Path) -> None:
    from engine.models.factory import make_client

    settings = settings_from_mapping(
        {
            "OPENAI_API_KEY": KEY,
            "ORCHESTRATOR_MODEL": "m",
            "ORCHESTRATOR_BASE_URL": "http://127.0.0.1:9/v1",
        }
    )
    first, second = make_client(settings, "writer"), make_client(settings, "writer")
    assert first.root_async_client._client is not second.root_async_client._client


async def test_a_model_that_never_gives_a_valid_structured_reply_is_named(
    tmp_path: Path,
) -> None:
    from engine.middleware.structured_output import StructuredOutputError, invoke_structured
    from engine.schemas import ResearchBrief

    with OpenAIServer() as llm:
        # Every structured answer is cut to invalid JSON: no attempt can be parsed.
        llm.fail("malformed_tool_args", times=20)
        model = _model(llm, tmp_path)
        with pytest.raises(StructuredOutputError) as caught:
            await invoke_structured(
                model, ResearchBrief, [HumanMessage(content="Brief this.")], policy=RetryPolicy()
            )
    message = sanitize_run_error(caught.value)
    assert message.startswith(f"the {model.role} model at 127.0.0.1:{llm.port} gave no valid")
    assert "ResearchBrief" in message and "resume the session" in message
    assert KEY not in message


def test_a_plan_whose_tracks_share_a_section_is_repaired_not_refused() -> None:
    from engine.schemas import ResearchPlan, with_distinct_sections

    track = {"title": "lru_cache", "section": "Caching Function Results", "queries": ["q"]}
    raw = {
        "scope": "functools caching",
        "tracks": [
            track,
            {**track, "title": "cached_property"},
            {**track, "title": "cached_property"},
        ],
    }
    with pytest.raises(ValueError, match="share the report section"):
        ResearchPlan.model_validate(raw)
    plan = ResearchPlan.model_validate(with_distinct_sections(raw))
    assert [t.section for t in plan.tracks] == [
        "Caching Function Results",
        "Caching Function Results: cached_property",
        "Caching Function Results: cached_property (3)",
    ]


async def test_the_planner_keeps_a_plan_it_can_repair(tmp_path: Path) -> None:
    import json

    from langchain_core.messages import AIMessage

    from engine.middleware.structured_output import invoke_structured
    from engine.models.compat.chat import STRUCTURED_ARGS
    from engine.schemas import ResearchPlan, with_distinct_sections
    from tests.helpers.scripted_model import ScriptedChatModel

    track = {"title": "lru_cache", "section": "Caching", "queries": ["q"]}
    args = {"scope": "caching", "tracks": [track, {**track, "title": "cache"}, track]}
    reply = AIMessage(content=json.dumps(args), response_metadata={STRUCTURED_ARGS: args})
    model = ScriptedChatModel.sequence([reply, reply])
    plan = await invoke_structured(
        model,
        ResearchPlan,
        [HumanMessage("plan")],
        policy=RetryPolicy(),
        repair=with_distinct_sections,
    )
    assert len({t.section for t in plan.tracks}) == 3


async def test_a_brief_written_as_prose_is_read_as_the_brief() -> None:
    from langchain_core.messages import AIMessage

    from engine.middleware.structured_output import StructuredOutputError, invoke_structured
    from engine.schemas import ResearchBrief, brief_from_text
    from tests.helpers.scripted_model import ScriptedChatModel

    prose = "Research how asyncio tasks are cancelled and how wait_for and timeout use it."
    model = ScriptedChatModel.sequence([AIMessage(content=prose)] * 2)
    brief = await invoke_structured(
        model,
        ResearchBrief,
        [HumanMessage("brief")],
        policy=RetryPolicy(),
        from_text=brief_from_text,
    )
    assert brief.research_brief == prose
    # Broken JSON or a few words are not a brief: the run says what failed instead.
    for reply in ('{"research_brief": "cut', "ok"):
        short = ScriptedChatModel.sequence([AIMessage(content=reply)] * 2)
        with pytest.raises(StructuredOutputError):
            await invoke_structured(
                short,
                ResearchBrief,
                [HumanMessage("brief")],
                policy=RetryPolicy(),
                from_text=brief_from_text,
            )


async def test_parallel_calls_to_a_server_with_one_slot_all_get_whole_answers(
    tmp_path: Path,
) -> None:
    import asyncio

    # As llama-cpp-python's server: each new request ends the reply streaming before it.
    # Researchers running in parallel must still each get a whole answer, not fail after
    # cutting each other off.
    with OpenAIServer(delay_seconds=0.3, single_slot=True) as llm:
        model = _model(llm, tmp_path)
        question = [HumanMessage(content="Say hello to the whole wide world.")]
        replies = await asyncio.gather(*(model.ainvoke(question) for _ in range(4)))
        cut = llm.cut
    assert cut >= 1  # the calls did collide
    assert [reply.response_metadata.get("finish_reason") for reply in replies] == ["stop"] * 4


async def test_probes_during_a_rate_limit_outage_are_short_and_never_remembered(
    tmp_path: Path,
) -> None:
    waits: list[float] = []

    async def recorded(seconds: float) -> None:
        waits.append(seconds)

    with OpenAIServer() as llm:
        model = _model(llm, tmp_path, MODEL_TOOL_CALLING="auto", MODEL_STRUCTURED_OUTPUT="auto")
        model.endpoint.transport.policy = RetryPolicy(max_retries=10, sleep=recorded)
        model.endpoint.profile = None  # nothing cached: the first call probes
        llm.fail("rate_limit", times=10_000, retry_after=30)
        assumed = await model.endpoint.resolved()
        probe_requests = len(llm.requests)
        llm.clear_faults()
        # Once the outage is over, the next call asks the server again and remembers it.
        model.endpoint.assumed_until = 1.0
        detected = await model.endpoint.resolved()
    # Five probes, each tried at most twice, none waiting out the server's 30 s Retry-After.
    assert probe_requests <= 10
    assert waits and max(waits) <= 2.0 and sum(waits) <= 10.0
    assert not assumed.conclusive and assumed.source == "assumed"
    assert detected.conclusive and detected.tool_calling == "prompted"
    cached = json.loads((tmp_path / "model_profiles.json").read_text(encoding="utf-8"))
    assert [entry["source"] for entry in cached.values()] == ["detected"]


def test_a_shared_section_that_names_one_track_is_that_track_s() -> None:
    from engine.schemas import ResearchPlan, with_distinct_sections

    # The 1.5B's PostgreSQL plan: the chapter of one track given to another too.
    raw = {
        "scope": "autovacuum",
        "tracks": [
            {"title": "Lock Management", "section": "25.1. Routine Vacuuming", "queries": ["q"]},
            {"title": "Routine Vacuuming", "section": "25.1. Routine Vacuuming", "queries": ["q"]},
            {"title": "Routine Vacuuming", "section": "25.1. Routine Vacuuming", "queries": ["q"]},
        ],
    }
    plan = ResearchPlan.model_validate(with_distinct_sections(raw))
    assert [t.section for t in plan.tracks] == [
        "Lock Management",
        "25.1. Routine Vacuuming",
        "Routine Vacuuming",
    ]


async def test_a_server_that_breaks_off_streamed_tool_requests_is_probed_not_called_down(
    tmp_path: Path,
) -> None:
    # llama-cpp-python's chatml-function-calling refuses a streamed `tool_choice: "auto"`
    # after its stream began: the reply breaks off, which the client calls a connection error.
    # The server answers everything else, so it is reachable and its tools are prompted.
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path, MODEL_TOOL_CALLING="auto", MODEL_STRUCTURED_OUTPUT="auto")
        model.endpoint.transport.policy = RetryPolicy(max_retries=10, sleep=_no_sleep)
        model.endpoint.profile = None  # nothing cached: the first call probes
        llm.fail("broken_stream", times=10_000, when_tool="get_weather")
        reply = await model.ainvoke([HumanMessage(content="Say hello.")])
    assert reply.content
    assert model.endpoint.profile is not None
    assert model.endpoint.profile.tool_calling == "prompted"


async def test_a_reply_that_breaks_off_every_time_is_named_as_such_not_unreachable(
    tmp_path: Path,
) -> None:
    with OpenAIServer() as llm:
        llm.fail("broken_stream", times=50)
        model = _model(llm, tmp_path)
        with pytest.raises(ModelCallError) as caught:
            await model.ainvoke([HumanMessage(content="Say hello.")])
    assert not caught.value.unreachable
    assert "broke off its reply" in str(caught.value)
    assert "cannot be reached" not in str(caught.value)


async def test_a_server_that_is_down_is_still_unreachable(tmp_path: Path) -> None:
    with OpenAIServer() as llm:
        model = _model(llm, tmp_path)
    # The server has stopped: nothing listens on its port any more.
    with pytest.raises(ModelCallError) as caught:
        await model.ainvoke([HumanMessage(content="Say hello.")])
    assert caught.value.unreachable
    assert "cannot be reached" in str(caught.value)
