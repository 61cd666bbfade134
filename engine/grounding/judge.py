"""The support judge: a model reads a sentence beside the best passages of its cited sources.

Only sentences the verbatim fast path could not decide are asked about, a few to a call, each
with the passages of its sources that share most of its words (ranked within each source, so
every cited source is shown). The reply is a structured verdict per sentence: supported,
contradicted or not_found, with the passage's own words as a quote. A "supported" whose quote
is not found verbatim in the passages shown counts as not_found: the judge has to point at
what it read. For a quick answer it also says whether the sentence answers the question.

Calls are bounded (`MAX_CALLS`), each announced as it starts, and stop early when the
session's budget would not allow another; a batch whose call fails keeps its lexical verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from engine.budget import another_call_allowed
from engine.emit import emit
from engine.events import MetricRecorded
from engine.grounding.passages import Passage
from engine.grounding.ranking import best_windows
from engine.grounding.verbatim import found_verbatim
from engine.messages import message_text
from engine.models.compat.chat import STRUCTURED_ARGS
from engine.models.compat.json_text import parse_json_object

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

JudgeVerdictName = Literal["supported", "contradicted", "not_found"]
# Sentences per call: a small local model keeps track of a few at once.
BATCH_SIZE = 4
# At most this many calls per report: what a claim check may add to a session's cost.
MAX_CALLS = 6
# Passages shown per cited source, and how long each may be.
PASSAGES_PER_SOURCE = 2
PASSAGE_CHARS = 700
REPLY_TOKENS = 160  # per sentence in the batch
JUDGE_METRIC = "grounding_judge"
VERDICT_NAME = "SupportVerdicts"

VERDICT_SCHEMA: dict[str, Any] = {
    "title": VERDICT_NAME,
    "description": "One verdict for each numbered sentence.",
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "verdict": {
                        "type": "string",
                        "enum": ["supported", "contradicted", "not_found"],
                    },
                    "quote": {"type": "string"},
                    "answers_question": {"type": "boolean"},
                },
                "required": ["id", "verdict", "quote"],
            },
        }
    },
    "required": ["verdicts"],
}

SYSTEM_PROMPT = (
    "You check sentences of a report against the passages their sources returned. For each "
    "numbered sentence, read only its passages and answer:\n"
    '- "supported": a passage states what the sentence says (same subject, same values);\n'
    '- "contradicted": a passage states something else for the same subject (another '
    "value, the opposite, another function or setting);\n"
    '- "not_found": the passages do not say it.\n'
    'For "supported" and "contradicted", "quote" is the passage\'s own words that decide, '
    'copied exactly; for "not_found" it is "". A value stated for a neighbouring setting or '
    "another module is not support. Reply with JSON only."
)
QUESTION_PROMPT = (
    'Also give "answers_question": true when the sentence is about what this question asks '
    "(the same module, class or setting), false when it is about something else: {question}"
)


@dataclass(frozen=True)
class JudgeItem:
    """A sentence to judge and every passage of its cited sources."""

    sentence: str
    passages: tuple[Passage, ...]


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's verdict on one sentence, with the passage its quote was found in."""

    verdict: JudgeVerdictName
    quote: str = ""
    passage: Passage | None = None
    offset: int = 0
    answers_question: bool | None = None


@dataclass(frozen=True)
class JudgeFailure:
    """Why a sentence has no verdict from the judge (its lexical verdict stands)."""

    reason: str
    # The call was not made or did not come back (a limit, the budget, the network), as
    # opposed to a reply that gave no usable verdict: it says nothing of how the model judges.
    by_call: bool = False


JudgeOutcome = JudgeVerdict | JudgeFailure


@dataclass(frozen=True)
class _Shown:
    """A passage window shown to the judge: where it was cut from, and its text."""

    passage: Passage
    start: int
    text: str


class SupportJudge:
    """Asks a chat model for support verdicts, a bounded number of calls per report."""

    def __init__(
        self,
        model: BaseChatModel,
        *,
        label: str = "",
        batch_size: int = BATCH_SIZE,
        max_calls: int = MAX_CALLS,
    ) -> None:
        self.model = model
        self.label = label
        self.batch_size = batch_size
        self.max_calls = max_calls

    async def judge(
        self, items: Sequence[JudgeItem], question: str | None = None, *, limit_calls: bool = True
    ) -> list[JudgeOutcome]:
        """One outcome per item, in order (`limit_calls` False: every batch is asked)."""
        outcomes: list[JudgeOutcome] = [JudgeFailure("not judged")] * len(items)
        batches = [
            list(range(start, min(start + self.batch_size, len(items))))
            for start in range(0, len(items), self.batch_size)
        ]
        for number, batch in enumerate(batches, 1):
            if limit_calls and number > self.max_calls:
                why = f"the judge's limit of {self.max_calls} calls per report was reached"
                self._fail(outcomes, batch, why)
                continue
            if not another_call_allowed():
                self._fail(outcomes, batch, "the session's budget allows no more calls")
                continue
            emit(
                MetricRecorded(
                    name=JUDGE_METRIC,
                    values={"call": number, "calls": len(batches), "sentences": len(batch)},
                )
            )
            shown = [_windows(items[index]) for index in batch]
            try:
                reply = await self._ask([items[i].sentence for i in batch], shown, question)
            except Exception as exc:  # a judge that fails leaves the lexical verdicts
                self._fail(outcomes, batch, f"the judge's call failed ({type(exc).__name__})")
                continue
            for position, index in enumerate(batch):
                outcomes[index] = _outcome(reply.get(position + 1), shown[position], question)
        return outcomes

    @staticmethod
    def _fail(outcomes: list[JudgeOutcome], batch: list[int], reason: str) -> None:
        for index in batch:
            outcomes[index] = JudgeFailure(reason, by_call=True)

    async def _ask(
        self, sentences: list[str], shown: list[list[_Shown]], question: str | None
    ) -> dict[int, dict[str, Any]]:
        system = SYSTEM_PROMPT
        if question:
            system += "\n" + QUESTION_PROMPT.format(question=question)
        structured = self.model.with_structured_output(VERDICT_SCHEMA, include_raw=True)
        result = await structured.ainvoke(
            [SystemMessage(content=system), HumanMessage(content=_prompt(sentences, shown))],
            max_tokens=REPLY_TOKENS * len(sentences),
        )
        raw = result.get("raw") if isinstance(result, dict) else result
        return _verdicts_by_id(_payload(raw))


def _prompt(sentences: list[str], shown: list[list[_Shown]]) -> str:
    parts = []
    for number, (sentence, windows) in enumerate(zip(sentences, shown, strict=True), 1):
        lines = [f"Sentence {number}: {sentence.strip()}"]
        lines += [f"  Passage ({window.passage.source}): {window.text}" for window in windows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _windows(item: JudgeItem) -> list[_Shown]:
    """The passages shown for a sentence: the best windows of each cited source."""
    shown: list[_Shown] = []
    for source in dict.fromkeys(passage.source for passage in item.passages):
        own = [passage for passage in item.passages if passage.source == source]
        for passage, start, text in best_windows(
            item.sentence, own, count=PASSAGES_PER_SOURCE, chars=PASSAGE_CHARS
        ):
            shown.append(_Shown(passage, start, text))
    return shown


def _payload(raw: Any) -> dict[str, Any]:
    if isinstance(raw, AIMessage):
        args = raw.response_metadata.get(STRUCTURED_ARGS)
        if isinstance(args, dict):
            return args
        if raw.tool_calls:
            return dict(raw.tool_calls[0]["args"])
        try:
            return parse_json_object(message_text(raw))
        except ValueError:
            return {}
    return raw if isinstance(raw, dict) else {}


def _verdicts_by_id(payload: dict[str, Any]) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    verdicts = payload.get("verdicts")
    for entry in verdicts if isinstance(verdicts, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            found.setdefault(entry["id"], entry)
    return found


def _outcome(
    entry: dict[str, Any] | None, shown: list[_Shown], question: str | None
) -> JudgeOutcome:
    if entry is None:
        return JudgeFailure("the judge gave no verdict for it")
    verdict = entry.get("verdict")
    if verdict not in ("supported", "contradicted", "not_found"):
        return JudgeFailure("the judge's verdict was not one it may give")
    answers = entry.get("answers_question") if question else None
    answers = answers if isinstance(answers, bool) else None
    quote = str(entry.get("quote") or "").strip()
    if verdict == "not_found":
        return JudgeVerdict("not_found", answers_question=answers)
    located = _located(quote, shown)
    if located is None:
        # A verdict that cannot point at what it read is no verdict on the passages.
        return JudgeVerdict("not_found", answers_question=answers)
    passage, offset, words = located
    return JudgeVerdict(verdict, words, passage, offset, answers)


def _located(quote: str, shown: list[_Shown]) -> tuple[Passage, int, str] | None:
    """The passage a quote was copied from, where in it, and its words there."""
    if not quote:
        return None
    windows = [Passage(w.passage.source, w.passage.number, w.text) for w in shown]
    match = found_verbatim(quote, windows, min_words=3)
    if match is None:
        return None
    window = shown[windows.index(match.passage)]
    return window.passage, window.start + match.offset, match.words
