"""A reply that writes out its own instructions, or a line it already wrote, is ended there and
cut back to before it. Both seen on the bundled 1.5B as a researcher, each to its token cap."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from engine.config import settings_from_mapping
from engine.middleware.retry import RetryPolicy
from engine.models.compat.degenerate import Degeneration
from engine.models.compat.reply_watch import STOPPED_EARLY
from engine.models.factory import make_chat_model
from tests.helpers.scripted_openai_server import Answer, ScriptedOpenAIServer

TODO_RULES = (
    "## `write_todos`\n\n"
    "- The `write_todos` tool should never be called multiple times in parallel.\n"
    "- Mark todos as completed as soon as you are done with a step. Do not batch up multiple "
    "steps before marking them as completed.\n"
)
OWN = "- autovacuum_naptime sets the minimum delay between autovacuum runs on any database [1].\n"
SETTING = (
    "The `autovacuum_vacuum_insert_scale_factor` parameter controls the fraction of a table's "
    "size added to the insert threshold [5]."
)


def _fired(watch: Degeneration, text: str) -> str | None:
    """The reply as it is kept once the watch fired while it streamed (None: it never did)."""
    for end in range(1, len(text) + 1):
        if watch(text[:end]):
            assert watch.cut_at is not None
            return text[: watch.cut_at].rstrip()
    return None


def test_a_reply_writing_out_its_instructions_is_cut_where_it_began():
    echo = "- Mark todos as completed as soon as you are done with a step. Do not batch up"
    reply = f"{OWN}- The `write_todos` tool should never be called multiple times in parallel.\n"
    assert _fired(Degeneration(TODO_RULES), reply + echo) == OWN.rstrip()


def test_a_line_written_again_under_a_new_number_is_cut():
    reply = f"- [1] {SETTING}\n- [2] Another setting, described at length for this test [2].\n"
    assert _fired(Degeneration(""), f"{reply}- [5] {SETTING}\n- [6] more") == reply.rstrip()


def test_short_lines_and_sentences_said_twice_inside_lines_are_the_reply_s_own():
    again = (
        "This parameter can only be set in the postgresql.conf file or on the server command line."
    )
    reply = (
        f"- autovacuum_naptime: the delay between runs. {again}\n"
        f"- autovacuum_max_workers: at most three workers. {again}\n"
        "## Sources\n- [1] runtime-config-autovacuum.html\n"
        "## Sources\n- [1] runtime-config-autovacuum.html\n"
    )
    assert _fired(Degeneration(TODO_RULES), reply) is None


async def test_the_stream_of_any_call_is_ended_and_cut_back(tmp_path: Path) -> None:
    reply = OWN + "- The `write_todos` tool should never be called multiple times in parallel.\n"
    tail = "- Mark todos as completed as soon as you are done with a step.\n" * 20
    with ScriptedOpenAIServer(lambda body: Answer(content=reply + tail)) as llm:
        settings = settings_from_mapping(
            {
                "ORCHESTRATOR_MODEL": "local-test",
                "ORCHESTRATOR_BASE_URL": llm.base_url,
                "OPENAI_API_KEY": "sk-test",
                "MODEL_TOOL_CALLING": "prompted",
                "MODEL_STRUCTURED_OUTPUT": "text",
                "DATA_DIR": str(tmp_path),
                "LLM_TIMEOUT_SECONDS": "5",
            }
        )
        model = make_chat_model(settings, "researcher")
        model.endpoint.transport.policy = RetryPolicy(max_retries=0)
        answer = await model.ainvoke([SystemMessage(TODO_RULES), HumanMessage("Research it.")])
        sent = len(llm.requests)
    assert answer.content == OWN.rstrip()
    assert answer.response_metadata["finish_reason"] == STOPPED_EARLY
    assert sent == 1  # ended on purpose: not asked again
