"""The supervisor loop: waves, caps, the quality gate, isolation of failures and timeouts."""

from __future__ import annotations

from pathlib import Path

from engine.events import (
    EvidenceAdded,
    ReportReady,
    ResearchUnitUpdated,
    RunFinished,
    RuntimeProgress,
)
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from tests.unit.engine.conftest import Scenario, make_settings


async def run_approved(settings, scenario: Scenario, question: str = "Compare alpha and beta"):
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = [e async for e in session.start(question, mode="deep")]
        events += [e async for e in session.review_plan(PlanDecision(action="approve"))]
    return events


def progress_of(events):
    return [e for e in events if isinstance(e, RuntimeProgress)]


def final_units(events):
    return {u.id: u for u in progress_of(events)[-1].research_units}


async def test_a_failing_researcher_never_cancels_its_siblings(tmp_path: Path):
    settings = make_settings(tmp_path)
    boom = RuntimeError("provider said https://internal.example:8443/v1 exploded\nTraceback ...")
    scenario = Scenario(researcher_error={"beta": boom})
    events = await run_approved(settings, scenario)
    units = final_units(events)
    assert units["unit-2"].status == "failed"
    assert units["unit-2"].failure_reason == "research unit execution failed"
    assert units["unit-1"].status == "completed" and units["unit-3"].status == "completed"
    assert units["unit-1"].evidence_count == 2
    assert "internal.example" not in "".join(e.model_dump_json() for e in events)
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


async def test_a_slow_researcher_times_out_alone(tmp_path: Path):
    settings = make_settings(tmp_path, research_unit_timeout_seconds=4)
    scenario = Scenario(researcher_delay={"gamma": 30.0})
    events = await run_approved(settings, scenario)
    units = final_units(events)
    assert units["unit-3"].status == "timed_out"
    assert units["unit-3"].failure_reason == (
        "research unit timed out at its limit of 4 s (RESEARCH_UNIT_TIMEOUT_SECONDS)"
    )
    assert units["unit-1"].status == units["unit-2"].status == "completed"


async def test_recursion_limit_is_reported_with_its_number(tmp_path: Path):
    settings = make_settings(tmp_path, max_react_tool_calls=1)  # recursion limit 13

    class Loop(Scenario):
        def research(self, messages):
            from tests.helpers.scripted_model import tool_call_message

            super().research(messages[:2])  # records the start
            return tool_call_message("search_web", {"query": "alpha query"})

    events = await run_approved(settings, Loop(tracks=3, wave=["alpha"]))
    unit = final_units(events)["unit-1"]
    assert unit.status == "failed" and unit.failure_reason == (
        "Recursion limit of 13 reached: the unit's limit of 1 tool call (MAX_REACT_TOOL_CALLS)"
    )


async def test_a_wave_larger_than_the_concurrency_cap_is_trimmed_and_reported(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2, min_evidence_records=50)
    scenario = Scenario(tracks=3, second_wave=["delta", "epsilon", "zeta"])
    events = await run_approved(settings, scenario)
    trimmed = next(p for p in progress_of(events) if p.skipped_research_units)
    assert trimmed.dispatched_research_units == 5  # the tracks, then two of the model's three
    assert trimmed.skipped_research_units == 1
    assert scenario.researcher_runs[3:] == ["delta", "epsilon"]


async def test_each_approved_track_is_its_own_unit_before_the_models_topics(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2, min_evidence_records=50)
    scenario = Scenario(tracks=3, second_wave=["delta"])
    events = await run_approved(settings, scenario)
    # Two waves of tracks within the concurrency cap, then the model's own topic.
    assert scenario.researcher_runs == ["alpha", "beta", "gamma", "delta"]
    units = final_units(events)
    assert [units[f"unit-{i}"].topic.splitlines()[0] for i in (1, 2, 3)] == [
        "Research track: Track alpha",
        "Research track: Track beta",
        "Research track: Track gamma",
    ]
    assert all("Queries: " in units[f"unit-{i}"].topic for i in (1, 2, 3))
    assert scenario.supervisor_calls >= 1  # the model spoke only after the tracks


async def test_the_total_cap_stops_dispatching(tmp_path: Path):
    settings = make_settings(tmp_path, max_researcher_iterations=3, min_evidence_records=50)
    scenario = Scenario(wave=["alpha", "beta", "gamma", "delta"], second_wave=["epsilon"])
    events = await run_approved(settings, scenario)
    last = progress_of(events)[-1]
    assert last.dispatched_research_units == 3
    assert len(scenario.researcher_runs) == 3
    assert any(isinstance(e, ReportReady) for e in events)


async def test_gate_rejects_then_passes_after_more_research(tmp_path: Path):
    settings = make_settings(tmp_path, min_evidence_records=8, min_source_domains=4)
    scenario = Scenario(tracks=3, second_wave=["delta"])
    events = await run_approved(settings, scenario)
    statuses = [
        p.quality_gate_status for p in progress_of(events) if p.quality_gate_status != "none"
    ]
    assert statuses == ["retry", "pass"]
    rejected = next(p for p in progress_of(events) if p.quality_gate_status == "retry")
    assert rejected.quality_gate_reason == (
        "6 evidence records, need 8; 6 records with sources, need 8; "
        "3 distinct source domains, need 4"
    )
    assert rejected.min_evidence_records == 8 and rejected.min_source_domains == 4
    passed = progress_of(events)[-1]
    assert passed.evidence_record_count == 8
    assert sorted(passed.source_domains) == [
        f"{word}.example.org" for word in ("alpha", "beta", "delta", "gamma")
    ]


async def test_a_gate_that_cannot_be_met_ends_research_instead_of_looping(tmp_path: Path):
    settings = make_settings(tmp_path, min_evidence_records=100)
    scenario = Scenario(tracks=3)
    events = await run_approved(settings, scenario)
    statuses = [
        p.quality_gate_status for p in progress_of(events) if p.quality_gate_status != "none"
    ]
    assert statuses == ["retry", "retry"]
    assert scenario.researcher_runs == ["alpha", "beta", "gamma"]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


async def test_consumers_need_only_runtime_progress_for_dispatch_and_gate(tmp_path: Path):
    """Counting dispatches from unit events or message text would disagree; progress is truth."""
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = Scenario(tracks=3)
    events = await run_approved(settings, scenario)
    progress = progress_of(events)
    # Every supervisor_tools pass reported: dispatch, collect (twice: three tracks, two at
    # once), then the gate.
    assert len(progress) == 5
    assert [p.dispatched_research_units for p in progress] == [2, 2, 3, 3, 3]
    assert [p.skipped_research_units for p in progress] == [0, 0, 0, 0, 0]
    assert [p.quality_gate_status for p in progress] == ["none", "none", "none", "none", "pass"]
    running = [
        e for e in events if isinstance(e, ResearchUnitUpdated) and e.unit.status == "running"
    ]
    assert len(running) == progress[-1].dispatched_research_units
    evidence = [e for e in events if isinstance(e, EvidenceAdded)]
    assert len(evidence) == progress[-1].evidence_record_count == 6


async def test_a_gate_with_no_evidence_at_all_also_ends_instead_of_looping(tmp_path: Path):
    settings = make_settings(tmp_path)
    fails = {word: RuntimeError("no sources") for word in ("alpha", "beta", "gamma")}
    scenario = Scenario(tracks=3, researcher_error=fails)
    events = await run_approved(settings, scenario)
    statuses = [
        p.quality_gate_status for p in progress_of(events) if p.quality_gate_status != "none"
    ]
    assert statuses == ["retry", "retry"]
    assert progress_of(events)[-1].evidence_record_count == 0
    assert scenario.supervisor_calls <= 4
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


class ProseSupervisor(Scenario):
    """A small model's supervisor: it answers in prose, never calling ConductResearch."""

    def supervise(self, messages):
        from langchain_core.messages import AIMessage

        self.supervisor_calls += 1
        return AIMessage(content="The research plan looks complete. Research is done.")


async def test_a_supervisor_that_dispatches_nothing_gets_the_plan_researched(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = ProseSupervisor(tracks=3)
    events = await run_approved(settings, scenario)
    # Every track was researched by the engine, as many at once as the cap allows.
    assert scenario.researcher_runs == ["alpha", "beta", "gamma"]
    assert progress_of(events)[0].dispatched_research_units == 2
    evidence = [e for e in events if isinstance(e, EvidenceAdded)]
    assert len(evidence) == 6
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


class BrokenCallSupervisor(Scenario):
    """A small model's supervisor: the same ConductResearch call, its topic left empty."""

    def supervise(self, messages):
        from tests.helpers.scripted_model import tool_call_message

        self.supervisor_calls += 1
        return tool_call_message("ConductResearch", {"research_topic": ""})


async def test_a_supervisor_whose_every_call_fails_gets_the_plan_researched(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = BrokenCallSupervisor(tracks=3)
    events = await run_approved(settings, scenario)
    assert scenario.researcher_runs == ["alpha", "beta", "gamma"]
    assert progress_of(events)[0].dispatched_research_units == 2
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


class SchemaEchoSupervisor(Scenario):
    """A 1.5B model's supervisor: the topic's schema sent as the topic."""

    answers: list[str]

    def supervise(self, messages):
        from langchain_core.messages import ToolMessage

        from tests.helpers.scripted_model import tool_call_message

        self.supervisor_calls += 1
        self.answers = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
        schema = {"description": "The topic to research, in detail.", "type": "string"}
        return tool_call_message("ConductResearch", {"research_topic": schema})


async def test_a_topic_sent_as_its_schema_is_refused_with_a_reason_the_model_can_act_on(
    tmp_path: Path,
):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = SchemaEchoSupervisor(tracks=3)
    events = await run_approved(settings, scenario)
    # No unit researched the schema; the plan's tracks were researched first.
    assert scenario.researcher_runs == ["alpha", "beta", "gamma"]
    assert any("must be the topic itself" in answer for answer in scenario.answers)
    units = final_units(events).values()
    assert not any("description" in unit.topic for unit in units)
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"


async def test_the_models_own_topic_is_researched_after_the_tracks(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = Scenario(tracks=3, wave=["delta"])
    await run_approved(settings, scenario)
    assert scenario.researcher_runs == ["alpha", "beta", "gamma", "delta"]


class MemoryResearcher(Scenario):
    """A small model's researcher: on its first turn it answers from memory, no tool call."""

    def research(self, messages):
        from langchain_core.messages import ToolMessage

        if not any(isinstance(m, ToolMessage) for m in messages):
            self.researcher_runs.append("memory")
            return "Asyncio is great and threads are fine too."
        return super().research(messages)


async def test_a_researcher_given_passages_is_not_made_to_search_them_again(tmp_path: Path):
    # The engine searched the track's query before the researcher spoke, so its first turn is
    # its own: no forced search that would repeat the engine's query and show the same
    # results twice. An answer from memory that cites none of the passages is no evidence.
    settings = make_settings(tmp_path, max_researcher_iterations=1)
    scenario = MemoryResearcher(tracks=3)
    events = await run_approved(settings, scenario)
    assert scenario.researcher_runs == ["memory"]
    # The engine's search of the track's query, and no other.
    assert [call.split(":", 1)[1] for call in scenario.search_calls] == ["alpha query"]
    assert not [e for e in events if isinstance(e, EvidenceAdded)]


class TwoSearchResearcher(Scenario):
    """Searches twice, then cites the second search's first result by number only."""

    def research(self, messages):
        from langchain_core.messages import ToolMessage

        from tests.helpers.scripted_model import tool_call_message

        results = [m for m in messages if isinstance(m, ToolMessage)]
        if not results:
            self.researcher_runs.append("alpha")
            return tool_call_message("search_web", {"query": "alpha query"})
        if len(results) == 1:
            return tool_call_message("search_web", {"query": "beta query"})
        self.seen_results = [str(m.content) for m in results]
        return "The beta finding is documented [3]."


async def test_a_researchers_searches_share_one_numbering(tmp_path: Path):
    settings = make_settings(tmp_path, max_researcher_iterations=1)
    scenario = TwoSearchResearcher(tracks=3)
    events = await run_approved(settings, scenario)
    assert "[3] Beta page 1" in scenario.seen_results[1]  # numbered after alpha's two results
    evidence = [e.record for e in events if isinstance(e, EvidenceAdded)]
    assert [r.source_urls for r in evidence] == [["https://beta.example.org/article-1"]]


async def test_a_plan_dispatched_by_the_engine_reports_no_gate_verdict_before_research(
    tmp_path: Path,
):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    events = await run_approved(settings, ProseSupervisor(tracks=3))
    assert progress_of(events)[0].quality_gate_status == "none"


class LoopingResearcher(Scenario):
    """Repeats its first search until told not to, then writes its findings."""

    def research(self, messages):
        from langchain_core.messages import ToolMessage

        from tests.helpers.scripted_model import tool_call_message

        results = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
        self.seen_results = results
        if results and "Do not call it again" in results[-1]:
            return "The alpha finding is documented [1]."
        self.researcher_runs.append("alpha")
        return tool_call_message("search_web", {"query": "alpha query"})


async def test_a_repeated_search_is_answered_with_a_nudge_instead_of_the_same_results(
    tmp_path: Path,
):
    settings = make_settings(tmp_path, max_researcher_iterations=1)
    scenario = LoopingResearcher(tracks=3)
    events = await run_approved(settings, scenario)
    assert len(scenario.researcher_runs) == 2  # the search, then its one repeat
    assert "already called search_web" in scenario.seen_results[-1]
    evidence = [e.record for e in events if isinstance(e, EvidenceAdded)]
    assert [r.source_urls for r in evidence] == [["https://alpha.example.org/article-1"]]


async def test_research_that_ends_at_its_cap_reports_the_final_gate_verdict(tmp_path: Path):
    """The verdict the report is written under arrives as typed progress when research ends,
    not only as a phase detail: a consumer shows it without waiting for the report."""
    settings = make_settings(tmp_path, max_researcher_iterations=3, min_evidence_records=50)
    scenario = Scenario(tracks=4, second_wave=["epsilon"])
    events = await run_approved(settings, scenario)
    last = progress_of(events)[-1]
    assert last.quality_gate_status == "retry"
    assert last.quality_gate_reason is not None and "need 50" in last.quality_gate_reason
    report_at = next(i for i, e in enumerate(events) if isinstance(e, ReportReady))
    assert events.index(last) < report_at


def test_the_gate_reason_counts_agree_with_their_nouns():
    from engine.citations.evidence import EvidenceRecord
    from engine.nodes.gate import evaluate_gate

    one = EvidenceRecord(id="e1", claim="Alpha holds.", source_urls=["https://a.example/x"])
    gate = evaluate_gate([one], min_records=2, min_domains=2)
    assert gate.reason == (
        "1 evidence record, need 2; 1 record with sources, need 2; 1 distinct source domain, need 2"
    )
    assert "0 evidence records" in (evaluate_gate([], min_records=1, min_domains=1).reason or "")


async def test_research_that_ends_early_names_the_tracks_it_never_researched(tmp_path: Path):
    settings = make_settings(tmp_path, max_researcher_iterations=2)
    scenario = Scenario(tracks=3)  # the cap ends research before gamma is researched
    events = await run_approved(settings, scenario)
    passes = progress_of(events)
    last = passes[-1]
    assert last.unresearched_tracks == ["Track gamma"]
    assert last.unresearched_reason == "unit_limit"
    assert all(not p.unresearched_tracks for p in passes[:-1])


async def test_research_of_every_track_names_none(tmp_path: Path):
    events = await run_approved(make_settings(tmp_path), Scenario())
    last = progress_of(events)[-1]
    assert last.unresearched_tracks == [] and last.unresearched_reason == "none"


def test_a_track_is_researched_by_the_topic_that_names_it_or_shares_most_words():
    from engine.nodes.track_coverage import unresearched_tracks
    from engine.schemas import ResearchPlan, ResearchTrack

    def track(title: str) -> ResearchTrack:
        return ResearchTrack(title=title, section=title, queries=[title])

    plan = ResearchPlan(
        scope="asyncio tasks and threads",
        tracks=[
            track("asyncio tasks: characteristics"),
            track("threads: characteristics"),
            track("asyncio tasks and threads for concurrent IO"),
            track("asyncio tasks and threads: trade-offs and pitfalls"),
        ],
        evidence_strategy="docs",
        output_format="report",
    )
    topics = [
        "asyncio tasks: characteristics. Find sources that answer: asyncio tasks",
        "How do OS threads behave, their characteristics",
        "asyncio tasks and threads for concurrent IO. Covers: asyncio tasks and threads",
    ]
    units = [{"topic": topic} for topic in topics]
    assert unresearched_tracks(plan, units) == [
        "asyncio tasks and threads: trade-offs and pitfalls"
    ]
    assert unresearched_tracks(None, units) == []
    # A unit the engine dispatched for a track names it, whatever its words.
    assert unresearched_tracks(plan, [{"topic": "anything", "track": 3}, *units]) == []


async def test_a_claim_two_units_record_from_the_same_sources_is_one_piece_of_evidence(
    tmp_path: Path,
):
    # Two researchers at once on the same subject write down the same sentences from the same
    # pages; counted twice, they would pass the gate on half the evidence it asks for.
    settings = make_settings(tmp_path, min_evidence_records=3, max_researcher_iterations=2)
    scenario = Scenario(track_words=["alpha", "alpha again", "beta"])
    events = await run_approved(settings, scenario)
    assert sorted(scenario.researcher_runs) == ["alpha", "alpha"]
    claims = [e.record.claim for e in events if isinstance(e, EvidenceAdded)]
    assert len(claims) == len(set(claims)) == 2
    last = progress_of(events)[-1]
    assert last.evidence_record_count == 2
    assert last.quality_gate_status != "passed"
    counts = sorted(u.evidence_count for u in last.research_units)
    assert counts == [0, 2]


async def test_a_later_wave_announces_no_claim_the_ledger_already_holds(tmp_path: Path):
    settings = make_settings(tmp_path, min_evidence_records=7, max_researcher_iterations=4)
    scenario = Scenario(tracks=3, second_wave=["alpha in depth"])
    events = await run_approved(settings, scenario)
    assert scenario.researcher_runs == ["alpha", "beta", "gamma", "alpha"]
    claims = [e.record.claim for e in events if isinstance(e, EvidenceAdded)]
    assert [claim for claim in claims if "alpha" in claim] == [
        "The alpha finding number 1 is documented.",
        "The alpha finding number 2 is documented.",
    ]
    assert progress_of(events)[-1].evidence_record_count == 6


async def test_tracks_the_person_edited_at_review_are_researched_first(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=1)
    scenario = Scenario(tracks=3)
    plan = scenario.plan()
    gamma = plan.tracks[2].model_copy(update={"queries": ["gamma query", "gamma history"]})
    edited = plan.model_copy(update={"tracks": [*plan.tracks[:2], gamma]})
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        _ = [e async for e in session.start("Compare alpha and beta", mode="deep")]
        decision = PlanDecision(action="edit", plan=edited)
        _ = [e async for e in session.review_plan(decision)]
    assert scenario.researcher_runs == ["gamma", "alpha", "beta"]


async def test_tracks_the_persons_feedback_names_are_researched_first(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=1)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        _ = [e async for e in session.start("Compare alpha and beta", mode="deep")]
        feedback = PlanDecision(action="revise", feedback="Focus on gamma first, please.")
        _ = [e async for e in session.review_plan(feedback)]
        _ = [e async for e in session.review_plan(PlanDecision(action="approve"))]
    assert scenario.plan_feedback_seen == ["Focus on gamma first, please."]
    assert scenario.researcher_runs == ["gamma", "alpha", "beta"]


def test_track_order_puts_edited_tracks_then_asked_for_tracks_first():
    from engine.plan_order import track_order
    from engine.schemas import ResearchPlan, ResearchTrack

    plan = ResearchPlan(
        scope="the scope",
        tracks=[
            ResearchTrack(title=f"Track {w}", section=f"Section {w}", queries=[f"{w} query"])
            for w in ("alpha", "beta", "gamma", "delta")
        ],
    )
    assert track_order(plan) == [0, 1, 2, 3]
    assert track_order(plan, ["more on delta"]) == [3, 0, 1, 2]
    assert track_order(plan, ["more on delta"], ["Track beta"]) == [1, 3, 0, 2]


async def test_limited_research_names_the_limit_it_stopped_at(tmp_path: Path):
    settings = make_settings(tmp_path, max_researcher_iterations=3, min_evidence_records=50)
    scenario = Scenario(tracks=4, second_wave=["epsilon"])
    events = await run_approved(settings, scenario)
    report = next(e for e in events if isinstance(e, ReportReady)).report
    assert "**Limited research:**" in report
    assert "limit of 3 research units (MAX_RESEARCHER_ITERATIONS)" in report


async def test_limited_research_without_a_limit_says_the_supervisor_ended_it(tmp_path: Path):
    settings = make_settings(tmp_path, min_evidence_records=100)
    events = await run_approved(settings, Scenario(tracks=3))
    report = next(e for e in events if isinstance(e, ReportReady)).report
    assert "stopped at its limits" not in report
    assert "the supervisor found no new evidence to add after 3 of at most" in report


def test_a_tracks_topic_carries_the_question_and_ranks_without_its_labels() -> None:
    from engine.nodes.plan_dispatch import topic_focus, track_topic
    from engine.schemas import ResearchTrack

    track = ResearchTrack(title="mod_deflate", section="Compression", queries=["mod_deflate"])
    question = "How can  Apache httpd\ncompress responses?"
    topic = track_topic(track, "Apache HTTPd", question)

    assert topic.endswith("How can Apache httpd compress responses?")
    focus = topic_focus(topic)
    for label in ("Research track", "Section", "Queries", "as a whole covers", "question it"):
        assert label not in focus
    assert focus.split() == [
        *["mod_deflate", "Compression", "mod_deflate", "Apache", "HTTPd"],
        *["How", "can", "Apache", "httpd", "compress", "responses?"],
    ]
    assert topic_focus("What is WAL?") == "What is WAL?"  # a topic of the model's own
    assert "question" not in track_topic(track, "Apache HTTPd")
