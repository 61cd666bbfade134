"""The writer, section by section: prompts sized to the window, passage numbers mapped to
sources by the engine, one line for a track that found nothing, the summary written last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.runtime import Runtime

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.config import settings_from_mapping
from engine.middleware.retry import RetryPolicy
from engine.models.factory import make_chat_model
from engine.nodes.deps import EngineDeps
from engine.nodes.report import final_report
from engine.nodes.section_inputs import SECTION_OUTPUT_TOKENS
from engine.schemas import Claim, ResearchPlan, ResearchTrack, SectionDraft
from tests.fixtures.openai_server import OpenAIServer
from tests.fixtures.prompt_task import section_payload
from tests.helpers.scripted_model import ScriptedChatModel, human_text, structured_reply
from tests.helpers.scripted_openai_server import Answer, ScriptedOpenAIServer
from tests.unit.engine.conftest import make_settings

PLAN = ResearchPlan(
    scope="asyncio tasks",
    tracks=[
        ResearchTrack(title="Cancelling tasks", section="Cancellation", queries=["cancel"]),
        ResearchTrack(title="Timeouts on awaits", section="Timeouts", queries=["wait_for"]),
        ResearchTrack(title="Task groups", section="Task groups", queries=["TaskGroup"]),
    ],
)
A, B = "https://a.example.org/tasks", "https://b.example.org/timeouts"


def _registry() -> SourceRegistry:
    registry = SourceRegistry()
    registry.add_url(A, "Tasks page", "Task.cancel() requests that the task be cancelled.")
    registry.add_url(B, "Timeouts page", "wait_for() cancels the task when the timeout expires.")
    return registry


def _state(records: list[EvidenceRecord], units: dict[str, Any], registry: SourceRegistry):
    return {
        "question": "How are asyncio tasks cancelled?",
        "plan": PLAN.model_dump(mode="json"),
        "evidence_ledger": [r.model_dump(mode="json") for r in records],
        "research_units": units,
        "registry": registry.to_dict(),
    }


def _deps(settings, model) -> EngineDeps:
    return EngineDeps(
        settings=settings,
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: [],
        retry=RetryPolicy(max_retries=0),
    )


def _record(n: int, claim: str, source: str, unit: str) -> EvidenceRecord:
    return EvidenceRecord(
        id=f"{unit}-e{n}", claim=claim, source_urls=[source], research_unit_id=unit
    )


UNITS = {
    "unit-1": {"id": "unit-1", "topic": "t1", "status": "completed", "track": 0},
    "unit-2": {"id": "unit-2", "topic": "t2", "status": "completed", "track": 1},
}
RECORDS = [
    _record(1, "Task.cancel() requests that the task be cancelled.", A, "unit-1"),
    _record(1, "wait_for() cancels the task when the timeout expires.", B, "unit-2"),
]


def _claims_writer(calls: list[dict[str, Any]]):
    """A writer that restates each finding, citing its passages (the summary: one sentence of
    its own, citing the first section's sources)."""

    def respond(messages: list[BaseMessage]) -> Any:
        payload = section_payload(human_text(messages)) or {}
        calls.append(payload)
        if "sections" in payload:
            first = payload["sections"][0]["sentences"][0]
            summary = f"In short: {first['text']}"
            return structured_reply(
                SectionDraft(claims=[Claim(text=summary, source_ids=first["sources"])])
            )
        findings = payload["findings"]
        return structured_reply(
            SectionDraft(claims=[Claim(text=f["text"], source_ids=f["passages"]) for f in findings])
        )

    return respond


async def test_each_track_is_a_section_and_one_that_found_nothing_says_why(tmp_path: Path):
    calls: list[dict[str, Any]] = []
    model = ScriptedChatModel(responder=_claims_writer(calls))
    settings = make_settings(tmp_path, max_researcher_iterations=2, critic_rounds=0)
    state = _state(RECORDS, UNITS, _registry())
    result = await final_report(state, Runtime(context=_deps(settings, model)))
    report = result["final_report"]
    headings = [line[3:] for line in report.splitlines() if line.startswith("## ")]
    assert headings == ["Summary", "Cancellation", "Timeouts", "Task groups", "Sources"]
    groups = report.split("## Task groups\n\n")[1].split("\n\n")[0]
    assert groups == (
        "_This track was not researched: the cap of 2 researchers "
        "(MAX_RESEARCHER_ITERATIONS) was used up._"
    )
    # The sections in plan order, the summary last, from the written sections.
    assert [c.get("section") for c in calls[:2]] == ["Cancellation", "Timeouts"]
    assert "sections" in calls[-1] and len(calls) == 3
    assert "task be cancelled [1]." in report and "timeout expires [2]." in report
    assert report.rstrip().endswith(f"[1] Tasks page: {A}\n[2] Timeouts page: {B}")
    assert result["writer_fallback"] is None


async def test_a_researched_track_without_findings_says_so(tmp_path: Path):
    model = ScriptedChatModel(responder=_claims_writer([]))
    units = {**UNITS, "unit-3": {"id": "unit-3", "topic": "t3", "status": "completed", "track": 2}}
    settings = make_settings(tmp_path, critic_rounds=0)
    result = await final_report(
        _state(RECORDS, units, _registry()), Runtime(context=_deps(settings, model))
    )
    section = result["final_report"].split("## Task groups\n\n")[1].split("\n\n")[0]
    assert section == "_This track's research found nothing citable in the retrieved sources._"


def _text_writer(llm_url: str, tmp_path: Path, window: int = 16384):
    settings = settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "local-test",
            "ORCHESTRATOR_BASE_URL": llm_url,
            "OPENAI_API_KEY": "sk-test",
            "MODEL_MAX_INPUT_TOKENS": str(window),
            "MODEL_TOOL_CALLING": "prompted",
            "MODEL_STRUCTURED_OUTPUT": "text",
            "DATA_DIR": str(tmp_path),
            "LLM_TIMEOUT_SECONDS": "5",
            "SEARCH_PROVIDER": "none",
            "CRITIC_ROUNDS": "0",
        }
    )
    model = make_chat_model(settings, "writer")
    model.endpoint.transport.policy = RetryPolicy(max_retries=0)
    return settings, model


async def test_passage_numbers_in_prose_become_the_reports_source_numbers(tmp_path: Path):
    """Over HTTP to a server without structured output: prose with [n] markers. The section's
    own passage numbers are mapped to sources by the engine; a sentence citing no passage it
    was given, or none at all, is dropped."""
    bodies: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> Answer:
        bodies.append(body)
        prompt = body["messages"][-1]["content"]
        payload = section_payload(prompt) or {}
        if "sections" in payload:
            return Answer(content="Tasks are cancelled on request [2].")
        if payload.get("section") == "Timeouts":
            return Answer(
                content="A timeout cancels the awaited task [1]. "
                "Timeouts are great for everyone. It returns 42 [7]."
            )
        return Answer(content="A task is cancelled with Task.cancel() [1].")

    records = [RECORDS[0], RECORDS[1]]
    with ScriptedOpenAIServer(answer) as llm:
        settings, model = _text_writer(llm.base_url, tmp_path)
        result = await final_report(
            _state(records, UNITS, _registry()), Runtime(context=_deps(settings, model))
        )
    report = result["final_report"]
    assert all("response_format" not in body for body in bodies)
    timeouts = report.split("## Timeouts\n\n")[1].split("\n\n")[0]
    # The Timeouts section's passage [1] is the timeouts page: source 2 of the report.
    assert timeouts == "A timeout cancels the awaited task [2]."
    assert "Task.cancel() [1]." in report
    assert "## Summary\n\nTasks are cancelled on request [2]." in report
    assert report.rstrip().endswith(f"[1] Tasks page: {A}\n[2] Timeouts page: {B}")


async def test_section_prompts_fit_a_16k_window_whatever_the_ledger_size(tmp_path: Path):
    registry = SourceRegistry()
    records = []
    for n in range(1, 401):
        url = f"https://docs{n}.example.org/page"
        registry.add_url(url, f"Page {n} " + "title " * 20, f"Fact {n} is long. " + "word " * 2500)
        unit = f"unit-{1 + n % 3}"
        records.append(_record(n, f"Fact {n} holds for tasks " + "and more " * 40, url, unit))
    units = {
        f"unit-{i}": {"id": f"unit-{i}", "topic": "t", "status": "completed", "track": i - 1}
        for i in (1, 2, 3)
    }
    prompts: list[list[BaseMessage]] = []

    def respond(messages: list[BaseMessage]) -> Any:
        prompts.append(messages)
        return _claims_writer([])(messages)

    model = ScriptedChatModel(responder=respond)
    settings = make_settings(tmp_path, model_max_input_tokens=16384, critic_rounds=0)
    result = await final_report(
        _state(records, units, registry), Runtime(context=_deps(settings, model))
    )
    assert len(prompts) == 4  # three sections and the summary
    for messages in prompts:
        chars = sum(len(str(m.content)) for m in messages)
        # Two characters a token is the densest text the estimator allows (URLs, code).
        assert chars / 2 + SECTION_OUTPUT_TOKENS <= 16384
        payload = section_payload(str(messages[-1].content))
        assert payload and (payload.get("findings") or payload.get("sections"))
    sections = [section_payload(str(m[-1].content)) or {} for m in prompts[:3]]
    assert all(len(s["findings"]) >= 3 for s in sections)
    assert result["final_report"].count("[") > 10


async def test_the_offline_model_writes_each_section_from_its_findings(tmp_path: Path):
    """The same writer path through the offline model over HTTP with JSON-schema output: the
    section's claims are its findings (quotes), each citing its passage."""
    settings = settings_from_mapping(
        {
            "ORCHESTRATOR_MODEL": "offline-over-http",
            "OPENAI_API_KEY": "sk-test",
            "MODEL_MAX_INPUT_TOKENS": "16384",
            "MODEL_TOOL_CALLING": "native",
            "MODEL_STRUCTURED_OUTPUT": "json_schema",
            "DATA_DIR": str(tmp_path),
            "LLM_TIMEOUT_SECONDS": "5",
            "SEARCH_PROVIDER": "none",
            "CRITIC_ROUNDS": "0",
        }
    )
    with OpenAIServer() as llm:
        settings = settings.model_copy(update={"orchestrator_base_url": llm.base_url})
        model = make_chat_model(settings, "writer")
        result = await final_report(
            _state(RECORDS, UNITS, _registry()), Runtime(context=_deps(settings, model))
        )
        bodies = llm.requests
    assert any(
        (b.get("response_format") or {}).get("json_schema", {}).get("name") == "SectionDraft"
        for b in bodies
    )
    report = result["final_report"]
    assert "## Cancellation\n\nTask.cancel() requests that the task be cancelled [1]." in report
    assert "## Timeouts\n\nwait_for() cancels the task when the timeout expires [2]." in report
    assert result["writer_fallback"] is None
    assert json.loads(json.dumps(result))  # the state update stays JSON


def test_human_prompt_is_one_json_object_after_its_heading():
    from engine.nodes.section_inputs import section_input

    built = section_input("Cancellation", "Cancelling tasks", "q", RECORDS[:1], _registry(), 10_000)
    message = HumanMessage(content=built.prompt())
    payload = section_payload(str(message.content))
    assert payload == {
        "question": "q",
        "section": "Cancellation",
        "track": "Cancelling tasks",
        "passages": [
            {
                "id": 1,
                "source": "Tasks page",
                "text": "Task.cancel() requests that the task be cancelled.",
            }
        ],
        "findings": [{"text": RECORDS[0].claim, "passages": [1]}],
    }


async def test_the_critic_takes_out_a_sentence_its_passages_do_not_support(tmp_path: Path):
    def respond(messages: list[BaseMessage]) -> Any:
        payload = section_payload(human_text(messages)) or {}
        if "sections" in payload:
            return structured_reply(SectionDraft(claims=[]))
        claims = [Claim(text=f["text"], source_ids=f["passages"]) for f in payload["findings"]]
        claims.append(
            Claim(text="Pandas dataframes merge on their indexes by default.", source_ids=[1])
        )
        return structured_reply(SectionDraft(claims=claims))

    model = ScriptedChatModel(responder=respond)
    settings = make_settings(tmp_path, critic_rounds=1)
    result = await final_report(
        _state(RECORDS, UNITS, _registry()), Runtime(context=_deps(settings, model))
    )
    report = result["final_report"]
    assert "Pandas" not in report
    assert "task be cancelled [1]." in report and "timeout expires [2]." in report


async def test_a_summary_that_copies_the_sections_is_no_summary() -> None:
    from engine.nodes.section_writer import SourceNumbers, WrittenSection, write_summary

    numbers = SourceNumbers()
    for locator in (A, B):
        numbers.number(locator)
    cancel = WrittenSection(
        "Cancellation",
        [("Task.cancel() requests cancellation.", [1]), ("The task sees CancelledError.", [1])],
        written_by_model=True,
    )
    timeouts = WrittenSection(
        "Timeouts",
        [("wait_for() cancels the task on timeout.", [2]), ("timeout() is a context.", [2])],
        written_by_model=True,
    )
    short = WrittenSection(
        "Timeouts", [("wait_for() cancels the task on timeout.", [2])], written_by_model=True
    )
    # Seen on the 1.5B: the summary is every section's sentences again, one after another.
    copied = SectionDraft(
        claims=[
            Claim(text="Task.cancel() requests cancellation.", source_ids=[1]),
            Claim(text="wait_for() cancels the task on timeout.", source_ids=[2]),
        ]
    )
    requoted = SectionDraft(
        claims=[
            Claim(text='Task.cancel() requests "cancellation".', source_ids=[1]),
            Claim(text="`wait_for()` cancels the task on timeout.", source_ids=[2]),
        ]
    )
    # Seen on the 1.5B: the sections' sentences again, grouped into claims of its own.
    regrouped = SectionDraft(
        claims=[
            Claim(
                text="Task.cancel() requests cancellation. The task sees CancelledError.",
                source_ids=[1],
            ),
            Claim(
                text="Tasks can be cancelled. wait_for() cancels the task on timeout.",
                source_ids=[1, 2],
            ),
        ]
    )
    own = SectionDraft(
        claims=[Claim(text="Tasks are cancelled directly or by a timeout.", source_ids=[1, 2])]
    )
    # Seen on the 1.5B: an opening the sections do not say, before a sentence they support.
    elsewhere = SectionDraft(
        claims=[
            Claim(text="Asyncio was designed for web servers by a committee.", source_ids=[1]),
            *own.claims,
        ]
    )
    policy = RetryPolicy(max_retries=0)
    unfound = SectionDraft(claims=elsewhere.claims[:1])
    for draft, sections, expected in (
        (elsewhere, [cancel, short], [("Tasks are cancelled directly or by a timeout.", [1, 2])]),
        # None of it found in the sections: a paraphrase, perhaps; grounding decides.
        (unfound, [cancel, short], [(unfound.claims[0].text, [1])]),
        # Neither the copy nor the sections' openings in its place: the reader read them.
        (copied, [cancel, timeouts], []),
        # A copy is a copy with its quotes and backticks dropped (seen on the 1.5B).
        (requoted, [cancel, timeouts], []),
        (copied, [cancel, short], []),
        (regrouped, [cancel, timeouts], []),
        (own, [cancel, short], [("Tasks are cancelled directly or by a timeout.", [1, 2])]),
    ):
        model = ScriptedChatModel.sequence([structured_reply(draft)])
        summary = await write_summary(
            model,
            "How are asyncio tasks cancelled?",
            sections,
            numbers,
            date="2026-01-01",
            structured=True,
            policy=policy,
        )
        assert summary == expected


def test_a_passage_given_to_the_writer_leaves_out_sentences_that_only_point_elsewhere():
    from engine.nodes.section_inputs import section_input

    registry = SourceRegistry()
    registry.add_url(
        A,
        "Tasks page",
        "Task.cancel() requests that the task be cancelled. See Section 20.10 for more "
        "details. The task then receives a CancelledError (see Section 4.2) at its next await.",
    )

    built = section_input("Cancellation", "Cancelling tasks", "q", RECORDS[:1], registry, 10_000)

    assert [passage.text for passage in built.passages] == [
        # A sentence that also says something stays whole, its pointer included.
        "Task.cancel() requests that the task be cancelled. The task then receives a "
        "CancelledError (see Section 4.2) at its next await."
    ]


def test_a_written_sentence_with_nothing_to_say_is_not_a_sentence_of_the_section():
    from engine.nodes.section_writer import SourceNumbers, cited_sentences

    claims = [
        Claim(text="3.", source_ids=[1]),
        Claim(text="Task.cancel() requests cancellation.", source_ids=[1]),
    ]

    kept = cited_sentences(claims, {1: A}, SourceNumbers())

    assert kept == [("Task.cancel() requests cancellation.", [1])]


def test_a_sentence_the_section_already_says_is_not_said_again():
    from engine.nodes.section_writer import SourceNumbers, cited_sentences

    claims = [
        Claim(
            text="Blocks range from 64 KB to 16 MB. Larger blocks compress better but use memory.",
            source_ids=[1],
        ),
        Claim(text="Larger blocks compress better but use memory.", source_ids=[1]),
        Claim(
            text="Larger blocks compress better but use memory. Unset, quality picks the size.",
            source_ids=[1],
        ),
    ]

    kept = cited_sentences(claims, {1: A}, SourceNumbers())

    assert kept == [
        ("Blocks range from 64 KB to 16 MB. Larger blocks compress better but use memory.", [1]),
        ("Unset, quality picks the size.", [1]),
    ]


async def test_a_reply_ends_once_it_has_written_the_claims_that_are_kept(tmp_path: Path):
    """The writer keeps a summary's first four claims: the reply is ended there, and read as far
    as it got. Seen on the 1.5B: a summary going on through every section, ~400 tokens."""
    from engine.model_task import ModelTask
    from engine.nodes.section_writer import SUMMARY_CLAIMS, draft_claims

    claims = [
        {"text": f"Claim {n} states a setting's default.", "source_ids": [n]} for n in range(6)
    ]
    whole = json.dumps({"claims": claims})
    # What comes after the fourth claim is broken: read to its end, the reply is no JSON.
    broken = whole[: whole.index('{"text": "Claim 4')] + '{"text": "Claim 4" "source_ids": [4]}]}'
    prose = " ".join(f"Claim {n} states a setting's default [{n}]." for n in range(6))
    replies = iter([broken, prose])
    with ScriptedOpenAIServer(lambda body: Answer(content=next(replies))) as llm:
        _, model = _text_writer(llm.base_url, tmp_path)
        task = ModelTask(role="summary", section={})
        policy = RetryPolicy(max_retries=0)
        model.endpoint.transport.policy = policy
        structured = await draft_claims(
            model,
            "system",
            "prompt",
            structured=True,
            policy=policy,
            task=task,
            keep=SUMMARY_CLAIMS,
        )
        written = await draft_claims(
            model, "system", "prompt", structured=False, policy=policy, task=task, keep=2
        )
        sent = len(llm.requests)

    assert [c.text for c in structured] == [c["text"] for c in claims[:SUMMARY_CLAIMS]]
    assert [c.source_ids for c in structured] == [[0], [1], [2], [3]]
    assert [c.text for c in written] == [
        "Claim 0 states a setting's default.",
        "Claim 1 states a setting's default.",
    ]
    assert sent == 2  # neither asked again


THRESHOLDS = (
    "The default thresholds and scale factors are taken from postgresql.conf, but it is "
    "possible to override them (and many other autovacuum control parameters) on a per-table "
    "basis; see Storage Parameters for more information."
)
DAEMON = "The autovacuum daemon checks each table once per naptime, in every database in turn."


def test_a_gloss_the_passages_do_not_support_leaves_the_claim_it_was_added_to():
    """Seen on the 1.5B (PostgreSQL, deep run): a restated fact, then a sentence of its own."""
    from engine.nodes.section_writer import SourceNumbers, cited_sentences

    restated = (
        "The default thresholds and scale factors are taken from postgresql.conf, but it is "
        "possible to override them on a per-table basis."
    )
    gloss = "This allows administrators to fine-tune vacuuming according to their specific needs."
    claims = [
        Claim(text=f"{restated} {gloss}", source_ids=[1]),
        # Both sentences are the passages': both stay.
        Claim(
            text="The autovacuum daemon checks each table once per naptime. It does so in "
            "every database in turn.",
            source_ids=[2],
        ),
        # Nothing here is the passage's: the claim is left whole for grounding to judge.
        Claim(text=f"{gloss} It keeps tables fast.", source_ids=[1]),
    ]
    known = {1: A, 2: B}
    passages = {1: THRESHOLDS, 2: DAEMON}
    sentences = [text for text, _ in cited_sentences(claims, known, SourceNumbers(), passages)]
    assert sentences == [
        restated,
        "The autovacuum daemon checks each table once per naptime. It does so in every "
        "database in turn.",
        f"{gloss} It keeps tables fast.",
    ]
    # Without the passages' text (a summary, written from sections), nothing is judged.
    assert cited_sentences(claims[:1], known, SourceNumbers())[0][0] == f"{restated} {gloss}"


async def _written_with(section: Any, *claims: Claim) -> Any:
    """The section as `write_section` makes it when the model replies with `claims`."""
    from engine.nodes.section_writer import SourceNumbers, write_section

    return await write_section(
        ScriptedChatModel.sequence([structured_reply(SectionDraft(claims=list(claims)))]),
        section,
        SourceNumbers(),
        date="2026-01-01",
        structured=True,
        policy=RetryPolicy(max_retries=0),
    )


async def test_the_section_writer_reads_each_claim_against_its_passages():
    from engine.nodes.section_inputs import NumberedPassage, SectionInput

    section = SectionInput(
        heading="Thresholds",
        track="Thresholds",
        question="How does autovacuum decide when to vacuum?",
        passages=[NumberedPassage(1, A, "Routine Vacuuming", THRESHOLDS)],
        findings=[(THRESHOLDS, [1])],
    )
    restated = "The default thresholds and scale factors are taken from postgresql.conf."
    glossed = Claim(text=f"{restated} This helps PostgreSQL manage memory.", source_ids=[1])
    written = await _written_with(section, glossed)
    assert written.written_by_model
    assert written.sentences == [(restated, [1])]


async def test_findings_from_passages_the_section_never_cites_follow_what_it_wrote():
    from engine.nodes.section_inputs import NumberedPassage, SectionInput
    from engine.nodes.section_writer import MAX_CLAIMS

    factor = "autovacuum_vacuum_scale_factor: Specifies a fraction of the table size to add."
    section = SectionInput(
        heading="Thresholds",
        track="Thresholds",
        question="How does autovacuum decide when to vacuum?",
        passages=[
            NumberedPassage(1, A, "Routine Vacuuming", THRESHOLDS),
            NumberedPassage(2, B, "Automatic Vacuuming", factor),
        ],
        findings=[(THRESHOLDS, [1]), (factor, [2])],
    )
    restated = "The default thresholds and scale factors are taken from postgresql.conf."

    async def written(*claims: Claim) -> list[tuple[str, list[int]]]:
        section_written = await _written_with(section, *claims)
        assert section_written.written_by_model
        return section_written.sentences

    # Seen on the 1.5B: a section from its first passage only; the other page's finding follows.
    assert await written(Claim(text=restated, source_ids=[1])) == [
        (restated, [1]),
        (factor, [2]),
    ]
    # A writer that cites a finding's passage has said it in its own words.
    own = "Each table's threshold grows with its size."
    assert await written(Claim(text=restated, source_ids=[1]), Claim(text=own, source_ids=[2])) == [
        (restated, [1]),
        (own, [2]),
    ]
    # A finding the section already says, citing another page for it, is not said again.
    same = Claim(text=factor.replace("Specifies", "specifies"), source_ids=[1])
    assert await written(same) == [(factor.replace("Specifies", "specifies"), [1])]
    full = [Claim(text=f"Sentence number {n} of the thresholds.", source_ids=[1]) for n in range(8)]
    assert len(await written(*full)) == MAX_CLAIMS  # a full section has no room left


def test_a_question_written_as_a_sentence_of_the_section_is_none():
    from engine.nodes.section_writer import SourceNumbers, cited_sentences

    # Seen on the 1.5B: the report's question written back, cited, as a section's opening.
    asked = "Apache httpd compresses responses, and which directives configure each?"
    claims = [
        Claim(text=asked, source_ids=[1, 2]),
        Claim(text=f"Why does it matter? {asked[:-1]}.", source_ids=[1]),
    ]

    kept = cited_sentences(claims, {1: A, 2: B}, SourceNumbers())

    assert kept == [(f"{asked[:-1]}.", [1])]


def test_a_claim_cut_off_mid_sentence_is_none():
    from engine.nodes.section_writer import SourceNumbers, cited_sentences

    # Seen on the 1.5B: a quote escaped twice in the JSON, its string read to the first quote.
    claims = [
        Claim(text="Unless SQLite is running in \\", source_ids=[1]),
        Claim(text="The checkpoint runs at 1000 pages", source_ids=[1]),
        Claim(text="The WAL file is kept smaller than the", source_ids=[1]),
        Claim(text="The autovacuum parameter defaults to on", source_ids=[1]),
    ]

    kept = cited_sentences(claims, {1: A}, SourceNumbers())

    assert kept == [
        ("The checkpoint runs at 1000 pages.", [1]),
        ("The autovacuum parameter defaults to on.", [1]),  # "on" ends sentences
    ]
