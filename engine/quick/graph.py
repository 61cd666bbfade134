"""The quick researcher: `retrieve`, then an `agent ⇄ tools` LangGraph loop with a hard budget.

`retrieve` searches the question as asked before the model speaks (engine/quick/retrieval.py),
and a chat model answers from those numbered passages first, in one call without tools, as a
retrieve-then-answer script would. Only an answer that neither cites nor restates a passage
gets a turn with the tools, to search for what is missing. Each agent turn renders the
prompt, compacts the request to fit the model window and calls the model.
Every tool call the model asks for counts against `MAX_TOOL_ITERATIONS` (parallel calls one
each; calls beyond what is left are dropped), and every model call against `MAX_LLM_TURNS`.
Once either is spent the synthesis anchor is appended as the last message and the model is
called without tools, so the run always ends with an answer well inside the recursion limit.
The final state's last `AIMessage` is the cited answer; the caller verifies its citations
exactly like a deep report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from engine.budget import budget_reached, budget_reached_by, call_tokens
from engine.config import Settings
from engine.emit import emit
from engine.events import MetricRecorded
from engine.messages import message_text
from engine.model_task import ModelTask, task_config
from engine.models.compat.reply_watch import stop_reply_when
from engine.quick.answer import (
    answer_only,
    finished_answer,
    question_of,
    without_raw_tool_calls,
)
from engine.quick.answer_length import either, first_sentences, said_enough
from engine.quick.budget import SYNTHESIS_ANCHOR, QuickBudget, quick_recursion_limit
from engine.quick.compaction import compact_messages, context_char_budget
from engine.quick.prompt import WEB_SEARCH_TOOL, render_quick_prompt, tools_info_from
from engine.quick.retrieval import (
    is_retrieval_call,
    passage_budget,
    retrieval_messages,
    retrieve,
    with_passages_turn,
)
from engine.quick.state import QuickResearchState
from engine.sourcing.attribution import attribute_uncited
from engine.sourcing.echo import copying_results, without_echo
from engine.sourcing.fact_markers import without_marker_facts
from engine.sourcing.source_numbers import (
    SourceCatalog,
    body_of,
    catalog_of,
    cited_numbers,
    renumber,
)

GRAPH_NAME = "quick_research"
# A reflection tool costs a whole round trip; the quick path trades it for speed.
QUICK_PATH_EXCLUDED_TOOLS = frozenset({"think_tool"})
TOOL_FAILURE_MESSAGE = (
    "This tool call failed. Try a different query or source, or answer from what you have."
)
# After tool results, the rule a model most often drops, restated where it reads last.
# Small models copy search results back as their answer unless told, at the end of the
# window, what the answer should look like; the question is repeated there for the same reason.
CITE_REMINDER = (
    "If these results answer the question, answer it now in two to five sentences of your "
    "own; do not copy the results. Put the number of the result each fact came from in square "
    "brackets after it, like [1]. Otherwise search again."
)


def _task(messages: list[BaseMessage], exhausted: bool) -> RunnableConfig:
    """The quick answer's task, handed to the model with each call as run metadata."""
    question = question_of(messages).strip()
    return task_config(ModelTask(role="quick", question=question, answer_now=exhausted))


def cite_reminder(question: str) -> str:
    return f"Question: {question}\n{CITE_REMINDER}" if question else CITE_REMINDER


# After a reply that began copying a search result and was stopped there.
COPY_NOTICE = (
    "Your reply began copying a search result instead of answering. Do not copy the "
    "results. Answer the question in two to five sentences of your own, with the number of "
    "the result each fact came from in square brackets after it, like [1]."
)


def copy_notice(question: str) -> str:
    return f"{COPY_NOTICE}\nQuestion: {question}" if question else COPY_NOTICE


def _copied_only(reply: AIMessage, catalog: SourceCatalog) -> bool:
    """The reply is copied search results and nothing of its own."""
    text = message_text(reply)
    if reply.tool_calls or not text.strip() or not catalog.entries:
        return False
    return not without_echo(text, catalog).strip()


# After an answer from the engine's passages that cites none of them: the passages did not
# hold the answer, so the model may search for what is missing (with its tools, this once).
SEARCH_MORE_NOTICE = (
    "Your answer cites none of the passages, so they may not answer the question. Search "
    "for what is missing with a short query, or answer again citing the passages you used."
)

MALFORMED_CALL_NOTICE = (
    "Your last reply looked like a tool call but could not be read. Either call a tool with "
    'exactly <tool_call>{"name": ..., "arguments": {...}}</tool_call>, or write the answer.'
)
BUDGET_METRIC = "quick_research_budget"
# A quick turn is a tool call or an answer of a few sentences with its references (a few
# hundred tokens). A small model that copies its search results back instead would write
# until the role's cap, minutes on a CPU server, for text that is taken out again.
QUICK_TURN_TOKENS = 600


def _tool_failure(error: Exception) -> str:
    # The model sees only a generic message: provider text and hosts stay out of prompts.
    return TOOL_FAILURE_MESSAGE


def quick_path_tools(tools: Sequence[BaseTool]) -> list[BaseTool]:
    """The tools the quick path binds: the given ones minus the reflection tool."""
    return [tool for tool in tools if tool.name not in QUICK_PATH_EXCLUDED_TOOLS]


def _selected_tools(state: QuickResearchState, tools: list[BaseTool]) -> list[BaseTool]:
    """Tools narrowed to the data sources the person selected (tool names), if any."""
    sources = state.get("data_sources")
    if not sources:
        return tools
    return [tool for tool in tools if tool.name in sources]


def _as_ai_message(message: BaseMessage) -> AIMessage:
    if isinstance(message, AIMessage):
        return message
    return AIMessage(content=message_text(message))


def _capped(message: AIMessage, remaining: int) -> AIMessage:
    """The reply with no more tool calls than the budget has left."""
    if len(message.tool_calls) <= remaining:
        return message
    return message.model_copy(
        update={
            "tool_calls": message.tool_calls[:remaining],
            "additional_kwargs": without_raw_tool_calls(message),
        }
    )


# After a short answer that wrote a passage number where its fact should be.
MARKER_NOTICE = (
    'Your answer put a passage number where the answer itself should be ("... is [1]."). '
    "Write the answer itself, the name, number or value the passage gives, with the passage "
    "number after it."
)


def marker_notice(question: str) -> str:
    return f"{MARKER_NOTICE}\nQuestion: {question}" if question else MARKER_NOTICE


def _fact_left_out(reply: AIMessage) -> bool:
    """The answer cited a passage where the fact asked for should be ("... is [1].")."""
    return without_marker_facts(message_text(reply))[1]


def _cut_to_sentences(reply: AIMessage) -> AIMessage:
    """The reply cut back to the sentences a short answer may have."""
    text = message_text(reply)
    cut = first_sentences(text)
    return reply if cut == text else reply.model_copy(update={"content": cut})


def _searched(messages: list[BaseMessage]) -> bool:
    return any(isinstance(message, ToolMessage) for message in messages)


def _no_answer(reply: AIMessage) -> bool:
    """A reply with no sentence in it (empty, or only a heading and reference lines)."""
    lines = [line.strip() for line in message_text(reply).splitlines() if line.strip()]
    prose = [line for line in lines if not line.startswith(("#", "[", "-", "*", "Document:"))]
    return sum(len(line.split()) for line in prose) < 4


def _unreadable_call(reply: AIMessage) -> bool:
    from engine.models.compat.normalize import looks_like_tool_call

    return not reply.tool_calls and looks_like_tool_call(message_text(reply))


async def _route(state: QuickResearchState) -> str:
    """Run the tools when the reply asked for any; a notice to the model (the last message is
    the engine's, not the model's) is another agent turn; else finish.

    Async so LangGraph runs it on the event loop instead of hopping to a worker thread.
    """
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):
        return "agent"
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else END


def _cites_a_passage(reply: AIMessage, catalog: SourceCatalog) -> bool:
    """The answer cites a number it was given (any number, for a search tool whose results
    the catalog cannot read), or restates a passage it left uncited: small models often
    answer from the passages correctly and cite nothing."""
    numbers = cited_numbers(body_of(attribute_uncited(message_text(reply), catalog)))
    return any(n in catalog.entries for n in numbers) if catalog.entries else bool(numbers)


def _budget_metric(
    budget: QuickBudget, tool_iterations: int, llm_turns: int, *, forced: bool
) -> MetricRecorded:
    """What the finished quick run spent, for the panes that show what the quick path did."""
    return MetricRecorded(
        name=BUDGET_METRIC,
        values={
            "tool_iterations": tool_iterations,
            "max_tool_iterations": budget.max_tool_iterations,
            "llm_turns": llm_turns,
            "max_llm_turns": budget.max_llm_turns,
            "synthesis_forced": forced,
        },
    )


def final_answer(state: QuickResearchState) -> str:
    """The text of the last assistant message: the quick path's cited answer."""
    for message in reversed(state["messages"]):
        if isinstance(message, AIMessage):
            return message_text(message)
    return ""


def build_quick_graph(
    model: BaseChatModel,
    tools: list[BaseTool],
    settings: Settings,
    *,
    available_documents: list[str] | None = None,
    max_context_chars: int | None = None,
    clock: Callable[[], datetime] | None = None,
    chat_model: bool = True,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the bounded quick-path loop.

    Args:
        model: The chat model; `bind_tools` is called on it while budget remains.
        tools: Research tools (`search_web`, `fetch_url`; `think_tool` is left out).
        settings: Supplies `max_llm_turns`, `max_tool_iterations` and the model window.
        available_documents: Document names the prompt lists when the state names none.
        max_context_chars: Request size cap for compaction; defaults to the model window.
        clock: Source of the current date for the prompt (tests pin it).
        chat_model: A chat model is shown the engine's first search as one user turn of
            numbered passages and answers it first, without tools. False (the offline
            extractive model) keeps the search a tool call and its result, the structured
            form it reads, with the tools bound: it fetches the page it quotes from.
    """
    char_budget = max_context_chars or context_char_budget(settings)
    nodes = _QuickNodes(
        model,
        quick_path_tools(tools),
        QuickBudget.from_settings(settings),
        char_budget=char_budget,
        now=clock or (lambda: datetime.now().astimezone()),
        available_documents=available_documents,
        passage_budget=passage_budget(char_budget),
        chat_model=chat_model,
    )
    graph = StateGraph(QuickResearchState)
    graph.add_node("agent", nodes.agent)
    if any(tool.name == WEB_SEARCH_TOOL for tool in nodes.bound_tools):
        graph.add_node("retrieve", nodes.retrieve)
        graph.add_edge(START, "retrieve")
        graph.add_edge("retrieve", "agent")
    else:
        graph.add_edge(START, "agent")
    if nodes.bound_tools:
        graph.add_node("tools", nodes.run_tools)
        graph.add_conditional_edges("agent", _route, {"tools": "tools", "agent": "agent", END: END})
        graph.add_edge("tools", "agent")
    else:
        graph.add_edge("agent", END)
    compiled = graph.compile(name=GRAPH_NAME)
    return compiled.with_config(recursion_limit=quick_recursion_limit(settings))


class _QuickNodes:
    """The loop's two nodes: the agent turn and the tool calls it asked for."""

    def __init__(
        self,
        model: BaseChatModel,
        bound_tools: list[BaseTool],
        budget: QuickBudget,
        *,
        char_budget: int,
        now: Callable[[], datetime],
        available_documents: list[str] | None,
        passage_budget: int,
        chat_model: bool,
    ) -> None:
        self.passage_budget = passage_budget
        self.chat_model = chat_model
        self.model = model
        self.bound_tools = bound_tools
        self.budget = budget
        self.char_budget = char_budget
        self.now = now
        self.available_documents = available_documents
        self.tool_node = ToolNode(bound_tools, handle_tool_errors=_tool_failure)

    def request_for(
        self, state: QuickResearchState, usable: list[BaseTool], exhausted: bool
    ) -> list[BaseMessage]:
        listed = state.get("tools_info") or tools_info_from(usable)
        passages_given = any(is_retrieval_call(m) for m in state["messages"])
        prompt = render_quick_prompt(
            tools_info=listed if usable else [],
            now=self.now(),
            available_documents=state.get("available_documents") or self.available_documents or (),
            collection_name=state.get("collection_name"),
            user_info=state.get("user_info"),
            passages_given=passages_given,
            rules_in_turn=passages_given and self.chat_model,
        )
        messages: list[BaseMessage] = list(state["messages"])
        if self.chat_model:
            messages = with_passages_turn(messages)
        request: list[BaseMessage] = [SystemMessage(content=prompt), *messages]
        if exhausted:
            # Last in the window, where a model is least likely to overlook it.
            request.append(HumanMessage(content=SYNTHESIS_ANCHOR))
        elif isinstance(request[-1], ToolMessage):
            question = question_of(list(state["messages"]))
            request.append(HumanMessage(content=cite_reminder(question)))
        return compact_messages(request, self.char_budget)

    async def agent(self, state: QuickResearchState) -> dict[str, Any]:
        iterations = state.get("tool_iterations") or 0
        turns = state.get("llm_turns") or 0
        usable = _selected_tools(state, self.bound_tools)
        exhausted = self.budget.exhausted(tool_iterations=iterations, llm_turns=turns)
        # The session's budget: the answer is written now, from what was found so far.
        exhausted = exhausted or (bool(usable) and budget_reached() is not None)
        messages: list[BaseMessage] = list(state["messages"])
        passages_given = turns == 0 and any(map(is_retrieval_call, messages))
        if usable and passages_given and not exhausted:
            # The first call's size is known (its passages): one that would cross a cap is
            # the synthesis from those passages, and the answer says it is partial.
            exhausted = budget_reached_by(self._request_tokens(state)) is not None
        tools_allowed = bool(usable) and not exhausted
        # Answer first: given the passages, the model writes its answer in one call without
        # tools, as a retrieve-then-answer script would. A reply that asks for a tool anyway
        # is honoured; one citing none of the passages (they did not hold the answer) is
        # followed by a turn with the tools.
        answer_first = tools_allowed and passages_given and self.chat_model
        with_tools = tools_allowed and not answer_first
        reply = await self._reply(
            state, usable, exhausted, with_tools=with_tools, short=answer_first
        )
        if answer_first and not reply.tool_calls:
            if not _cites_a_passage(reply, catalog_of(messages)):
                return {
                    "messages": [answer_only(reply), HumanMessage(content=SEARCH_MORE_NOTICE)],
                    "tool_iterations": iterations,
                    "llm_turns": turns + 1,
                }
        elif with_tools and _unreadable_call(reply):
            # Not an answer: give the model one more turn to call properly or answer.
            notice = HumanMessage(content=MALFORMED_CALL_NOTICE)
            return {
                "messages": [reply, notice],
                "tool_iterations": iterations,
                "llm_turns": turns + 1,
            }
        searching = with_tools or (answer_first and bool(reply.tool_calls))
        if searching:
            reply = await self._within_budget(state, usable, reply, iterations)
        if not searching or not reply.tool_calls:
            reply = finished_answer(answer_only(reply), messages)
        spent = iterations + len(reply.tool_calls)
        if not reply.tool_calls:
            emit(_budget_metric(self.budget, spent, turns + 1, forced=exhausted))
        return {"messages": [reply], "tool_iterations": spent, "llm_turns": turns + 1}

    def _request_tokens(self, state: QuickResearchState) -> int:
        """What the answer-first call costs: its request and the longest reply a quick turn
        may write."""
        request = self.request_for(state, [], False)
        return call_tokens(map(message_text, request), QUICK_TURN_TOKENS)

    async def _reply(
        self,
        state: QuickResearchState,
        usable: list[BaseTool],
        exhausted: bool,
        *,
        with_tools: bool,
        short: bool = False,
    ) -> AIMessage:
        """The model's reply; one that only copies its results is asked once more.

        A `short` reply (the answer from the passages, asked for in one or two sentences) is
        ended once it has said a sentence more than that, and cut back to whole sentences.
        """
        messages: list[BaseMessage] = list(state["messages"])
        config = _task(messages, exhausted)
        runnable = self.model.bind_tools(usable) if with_tools else self.model
        # A call without tools is shown none (answer-first), unless it is the synthesis turn.
        shown = usable if with_tools or exhausted else []
        request = self.request_for(state, shown, exhausted)
        catalog = catalog_of(messages)
        # A reply that starts copying a result is cut off there, not read to the token cap.
        copying = copying_results(catalog) if catalog.entries else None
        with stop_reply_when(either(copying, said_enough() if short else None)):
            reply = _as_ai_message(
                await runnable.ainvoke(request, config, max_tokens=QUICK_TURN_TOKENS)
            )
            if short and not reply.tool_calls:
                reply = _cut_to_sentences(reply)
                if _fact_left_out(reply):
                    # Asked again after its own reply: a server that caches its last prompt
                    # reads only the reply and the notice.
                    notice = HumanMessage(content=marker_notice(question_of(messages)))
                    retry = [*request, reply, notice]
                    again = _cut_to_sentences(
                        _as_ai_message(
                            await runnable.ainvoke(retry, config, max_tokens=QUICK_TURN_TOKENS)
                        )
                    )
                    said = message_text(again).strip()
                    if said and not again.tool_calls and not _fact_left_out(again):
                        reply = again
            if _copied_only(reply, catalog):
                # Asked once more, with the same request before the notice: a server that
                # caches its last prompt reads only the notice again.
                notice = HumanMessage(content=copy_notice(question_of(messages)))
                retry = [*request, notice]
                again = _as_ai_message(
                    await runnable.ainvoke(retry, config, max_tokens=QUICK_TURN_TOKENS)
                )
                # Asked to answer, not to search: another search would cost a whole new prompt,
                # so a tool call here leaves the copy to be quoted from instead.
                reply = reply if again.tool_calls else again
        return reply

    async def _within_budget(
        self, state: QuickResearchState, usable: list[BaseTool], reply: AIMessage, iterations: int
    ) -> AIMessage:
        """The reply's tool calls cut to what the budget has left; a reply with no answer
        after a search, or still a copy of the results, is asked for once more."""
        reply = _capped(reply, self.budget.remaining_tool_calls(iterations))
        messages: list[BaseMessage] = list(state["messages"])
        if reply.tool_calls or not _searched(messages):
            return reply
        catalog = catalog_of(messages)
        copied = _copied_only(reply, catalog)
        if not copied and not _no_answer(reply):
            return reply
        retry = self.request_for(state, usable, True)
        config = _task(messages, True)
        if not copied:
            return _as_ai_message(
                await self.model.ainvoke(retry, config, max_tokens=QUICK_TURN_TOKENS)
            )
        # Copied twice already: asked with the tools still bound, so the request differs from
        # the last one only in its final line and a server's cached prompt still holds the rest
        # (without them, a small CPU server reads the whole prompt again: minutes). A tool call
        # or another copy leaves the copy to be quoted from.
        with stop_reply_when(copying_results(catalog)):
            again = await self.model.bind_tools(usable).ainvoke(
                retry, config, max_tokens=QUICK_TURN_TOKENS
            )
        again = _as_ai_message(again)
        if again.tool_calls or _no_answer(again) or _copied_only(again, catalog):
            return reply
        return again

    async def run_tools(self, state: QuickResearchState) -> dict[str, Any]:
        result = await self.tool_node.ainvoke(state)
        messages: list[BaseMessage] = list(result.get("messages", []))
        catalog = catalog_of(state["messages"])
        return {"messages": renumber(messages, catalog)}

    async def retrieve(self, state: QuickResearchState) -> dict[str, Any]:
        """The engine's own search for the question as asked, before the model's first turn."""
        messages: list[BaseMessage] = list(state["messages"])
        usable = _selected_tools(state, self.bound_tools)
        search_tool = next((tool for tool in usable if tool.name == WEB_SEARCH_TOOL), None)
        question = question_of(messages)
        if search_tool is None or _searched(messages) or not question.strip():
            return {}
        results = await retrieve(question, search_tool, self.passage_budget)
        return {"messages": retrieval_messages(question, results)}
