"""The quick path's final answer: what the model wrote, made into a cited answer.

Copied search results are taken out; an answer that is nothing of its own, or wrote a citation
where its fact should be, becomes the sources' best sentences, quoted under a lead-in that
says so; uncited sentences get the passage they restate; the references the answer cites are
listed. The lead-ins end with a colon, so grounding reads them as framing, not as claims.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from engine.messages import message_text
from engine.sourcing.attribution import attribute_uncited
from engine.sourcing.corroboration import corroborate
from engine.sourcing.echo import without_echo
from engine.sourcing.extractive import quoted_findings
from engine.sourcing.fact_markers import without_marker_facts
from engine.sourcing.marker_place import markers_at_sentence_end
from engine.sourcing.related import about_the_subject, related_quote
from engine.sourcing.source_numbers import (
    MARKER,
    SourceCatalog,
    body_of,
    catalog_of,
    complete_references,
)
from engine.sourcing.support import drop_unsupported

EMPTY_ANSWER = "The model wrote no answer to this question. Try deep research for it."
COPIED_ANSWER = (
    "The model copied its search results instead of answering this question. Try deep "
    "research for it, or a larger model."
)
# A lead-in (it ends with a colon), so grounding reads it as framing, not as a claim.
QUOTED_INSTEAD = (
    "The model copied its search results instead of answering, so here are the sentences "
    "of those results that best match the question, quoted:"
)
QUOTED_SENTENCES = 3
# Also a lead-in. A model that answers from memory cites nothing its sources could back;
# grounding then removes every sentence and the reader would get an empty answer.
QUOTED_BESIDE_UNCITED = (
    "The answer above cites none of the retrieved sources. These are the sentences of those "
    "sources that best match the question, quoted:"
)
# Lead-ins too, for an answer that wrote a citation where the fact asked for should be
# ("The minimum version is [1].", engine.sourcing.fact_markers).
QUOTED_FOR_MARKERS = (
    "The model cited its sources where the fact asked for should be, so here are the "
    "sentences of those sources that best match the question, quoted:"
)
QUOTED_BESIDE_MARKERS = (
    "The answer above left out a fact it was asked for and cited a source in its place. "
    "These are the sentences of the retrieved sources that best match the question, quoted:"
)


def question_of(messages: list[BaseMessage]) -> str:
    for message in messages:
        if isinstance(message, HumanMessage):
            return message_text(message)
    return ""


def without_raw_tool_calls(message: AIMessage) -> dict[str, Any]:
    # Provider adapters fall back to these raw copies when `tool_calls` is empty.
    return {
        key: value
        for key, value in message.additional_kwargs.items()
        if key not in ("tool_calls", "function_call")
    }


def answer_only(message: AIMessage) -> AIMessage:
    """The reply as a final answer: any tool calls a model made anyway are discarded."""
    update: dict[str, Any] = {}
    raw_calls = "tool_calls" in message.additional_kwargs
    if message.tool_calls or message.invalid_tool_calls or raw_calls:
        update = {
            "tool_calls": [],
            "invalid_tool_calls": [],
            "additional_kwargs": without_raw_tool_calls(message),
        }
    if not message_text(message).strip():
        update["content"] = EMPTY_ANSWER
    return message.model_copy(update=update) if update else message


def finished_answer(reply: AIMessage, messages: list[BaseMessage]) -> AIMessage:
    """The final answer, its cited numbers listed under References when the model did not.

    A reply that is still tool-call syntax is not an answer and never becomes one.
    """
    from engine.models.compat.normalize import looks_like_tool_call

    text = message_text(reply)
    if looks_like_tool_call(text):
        return reply.model_copy(update={"content": EMPTY_ANSWER})
    catalog = catalog_of(messages)
    question = question_of(messages)
    echoless = without_echo(text, catalog)
    own, fact_left_out = without_marker_facts(echoless)
    if not own.strip():
        # What the results say is still retrieved text: quoted, it answers more than a dump.
        quoted = quoted_findings(question, catalog, QUOTED_SENTENCES)
        lead_in = QUOTED_FOR_MARKERS if own != echoless else QUOTED_INSTEAD
        own = f"{lead_in}\n\n{quoted}" if quoted else COPIED_ANSWER
        fact_left_out = False
    body = body_of(own)
    checked = drop_unsupported(markers_at_sentence_end(body) + own[len(body) :], catalog)
    cited = corroborate(attribute_uncited(checked, catalog), catalog)
    cited = _with_quotes_if_uncited(cited, question, catalog, fact_left_out=fact_left_out)
    cited = related_quote(cited, question, catalog)
    completed = complete_references(cited, catalog)
    return reply.model_copy(update={"content": completed}) if completed != text else reply


def _with_quotes_if_uncited(
    answer: str, question: str, catalog: SourceCatalog, *, fact_left_out: bool = False
) -> str:
    """An answer that cites no retrieved source, or that cited one where the fact asked for
    should be, followed by what those sources say."""
    body = body_of(answer)
    if (MARKER.search(body) and not fact_left_out) or not catalog.passages:
        return answer
    # Only passages about what was asked: an off-topic search result is no answer either.
    about = about_the_subject(question)
    on_topic = SourceCatalog(
        catalog.entries,
        {number: text for number, text in catalog.passages.items() if about(text)},
    )
    quoted = quoted_findings(question, on_topic, QUOTED_SENTENCES)
    if not quoted:
        return answer
    lead_in = QUOTED_BESIDE_MARKERS if fact_left_out else QUOTED_BESIDE_UNCITED
    return f"{body.rstrip()}\n\n{lead_in}\n\n{quoted}\n{answer[len(body) :]}"
