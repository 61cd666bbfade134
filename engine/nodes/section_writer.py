"""The writer, section by section: each track's claims with their passages, then a summary.

Each section is written from its own numbered passages (engine.nodes.section_inputs), in a
prompt sized to the model's context, so a long run never overflows the writer and its
citations cannot drift to another section's sources. Where the endpoint's profile supports
structured output the section comes back as claims with passage ids (`SectionDraft`); else
as prose with `[n]` markers. Either way the engine maps each passage number to its source and
numbers the sources for the whole report; a sentence citing no passage it was given is
dropped. A section the model cannot write is its findings, each cited to its passages. The
summary is written last, from the sections.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from engine.budget import call_fits, call_tokens
from engine.grounding.score import score_claim
from engine.middleware.guarded import guarded_text_call
from engine.middleware.retry import RetryPolicy
from engine.middleware.structured_output import invoke_structured
from engine.model_task import ModelTask
from engine.models.compat.reply_watch import stop_reply_when
from engine.nodes.section_inputs import SectionInput
from engine.nodes.section_length import claims_complete
from engine.prompt_blocks import SECTION_INPUT_HEADING
from engine.prompts import SECTION_PROMPT, SUMMARY_PROMPT
from engine.schemas import Claim, SectionDraft
from engine.sourcing.finding_text import MIN_CONTENT_WORDS
from engine.text.markers import SPACED_MARKER_RE
from engine.text.sentences import LIST_BULLET_RE, PROSE_SENTENCE_BREAK, PROSE_SENTENCE_BREAK_RE
from engine.text.words import content_words

# A sentence of a section also ends at a line's end.
_SENTENCE_END = re.compile(rf"{PROSE_SENTENCE_BREAK}|\n+")
_WORD = re.compile(r"\w+")
MAX_CLAIMS = 8
# The summary is asked for 2 to 4 sentences.
SUMMARY_CLAIMS = 4
# What a section or the summary writes at most, for pricing the call before it is made.
SECTION_OUTPUT_TOKENS = 600


@dataclass
class SourceNumbers:
    """One number per source for the whole report, in order of first citation."""

    order: list[str] = field(default_factory=list)

    def number(self, locator: str) -> int:
        if locator not in self.order:
            self.order.append(locator)
        return self.order.index(locator) + 1


@dataclass(frozen=True)
class WrittenSection:
    heading: str
    sentences: list[tuple[str, list[int]]]  # text, report-wide source numbers
    written_by_model: bool

    def markdown(self) -> str:
        # One sentence a line: one paragraph when rendered, one claim per line when read.
        return "\n".join(_cited(text, numbers) for text, numbers in self.sentences)


def _cited(text: str, numbers: Sequence[int]) -> str:
    """The sentence with its markers before its closing punctuation: `… cancelled [1].`"""
    marks = "".join(f"[{n}]" for n in numbers)
    if text and text[-1] in ".!?":
        return f"{text[:-1].rstrip()} {marks}{text[-1]}"
    return f"{text} {marks}"


async def structured_output_supported(model: BaseChatModel, role: str = "writer") -> bool:
    """Whether the model's endpoint returns structured output (its capability profile says);
    a model without an endpoint profile (offline, in-process) does."""
    endpoint = getattr(model, "endpoint", None)
    resolved = getattr(endpoint, "resolved", None)
    if resolved is None:
        return True
    profile = await resolved(role)
    return str(getattr(profile, "structured_output", "text")) != "text"


def claims_from_prose(text: str) -> list[Claim]:
    """Prose with `[n]` markers as claims: each sentence with the numbers it cites."""
    claims: list[Claim] = []
    for piece in _SENTENCE_END.split(text):
        sentence = LIST_BULLET_RE.sub("", piece.strip()).strip()
        if not sentence or sentence.startswith("#"):
            continue
        ids = [n for group in SPACED_MARKER_RE.findall(sentence) for n in _numbers(group)]
        claims.append(Claim(text=SPACED_MARKER_RE.sub("", sentence).strip(), source_ids=ids))
    return claims


def _numbers(group: str) -> list[int]:
    found: list[int] = []
    for part in re.split(r"\s*,\s*", group):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and all(b.isdigit() for b in bounds):
            low, high = int(bounds[0]), int(bounds[1])
            found += list(range(low, min(high, low + 10) + 1))
        elif part.strip().isdigit():
            found.append(int(part))
    return found


def cited_sentences(
    claims: Sequence[Claim],
    known: dict[int, str],
    numbers: SourceNumbers,
    passages: dict[int, str] | None = None,
    said: Sequence[tuple[str, list[int]]] = (),
) -> list[tuple[str, list[int]]]:
    """Claims citing at least one passage they were given, their ids turned into report-wide
    source numbers; the rest dropped (a sentence resting on nothing it was shown). Given the
    `passages`' text, a claim keeps only the sentences they support when they support one. A
    sentence of `said` (the section's so far) is not said again."""
    kept: list[tuple[str, list[int]]] = []
    seen = {
        _folded(sentence) for text, _ in said for sentence in PROSE_SENTENCE_BREAK_RE.split(text)
    }
    for claim in claims[:MAX_CLAIMS]:
        text = " ".join(SPACED_MARKER_RE.sub("", claim.text).split())
        ids = [i for i in dict.fromkeys(claim.source_ids) if i in known]
        if not text or not ids:
            continue
        # A sentence the section already says is not said again, alone or inside a claim; a
        # question states nothing (seen on the 1.5B: the report's question written back as a
        # section's first sentence, cited).
        fresh = [
            s
            for s in PROSE_SENTENCE_BREAK_RE.split(text)
            if _folded(s) not in seen and not s.rstrip().endswith("?")
        ]
        if passages:
            fresh = without_own_additions(fresh, [passages[i] for i in ids if i in passages])
        text = " ".join(fresh)
        if len(content_words(text)) < MIN_CONTENT_WORDS:
            continue  # "3 [1].": a list number or a lone value written back says nothing
        if text[-1] not in ".!?" and _cut_off(text):
            continue
        seen.update(_folded(sentence) for sentence in fresh)
        if text[-1] not in ".!?":
            text += "."
        kept.append((text, list(dict.fromkeys(numbers.number(known[i]) for i in ids))))
    return kept


# Words a sentence cannot end on ("on", "in", "it" can: "autovacuum defaults to on").
_OPEN_ENDED = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "with",
        "by",
        "from",
        "into",
        "than",
        "and",
        "or",
        "if",
        "its",
        "their",
        "your",
    ]
)


def _cut_off(text: str) -> bool:
    """A claim without its stop that breaks off: seen on the 1.5B, a quote escaped twice in
    its JSON ("Unless SQLite is running in \\"auto_vacuum=FULL\\" mode, …"), its string read up
    to the first quote, "Unless SQLite is running in \\"; or one that ends on a word no
    sentence ends on ("… the file is smaller than")."""
    if text.rstrip().endswith("\\"):
        return True
    words = _WORD.findall(text.casefold())
    return bool(words) and words[-1] in _OPEN_ENDED


def without_own_additions(sentences: list[str], passages: list[str]) -> list[str]:
    """A claim's sentences less those its passages do not support, when they support one of
    them. Seen on the 1.5B: a fact restated from its passage, then a gloss of the model's own
    on it ("This helps PostgreSQL to efficiently manage memory and improve query
    performance."), cited to the same passage. A claim none of whose sentences its passages
    support is left whole: grounding decides it with every source the run retrieved."""
    if len(sentences) < 2 or not passages:
        return sentences
    supported = [score_claim(sentence, passages).status == "supported" for sentence in sentences]
    if not any(supported):
        return sentences
    return [sentence for sentence, ok in zip(sentences, supported, strict=True) if ok]


def _folded(sentence: str) -> str:
    return " ".join(sentence.split()).rstrip(".!? ").casefold()


async def draft_claims(
    model: BaseChatModel,
    system: str,
    prompt: str,
    *,
    structured: bool,
    policy: RetryPolicy,
    task: ModelTask,
    keep: int = MAX_CLAIMS,
) -> list[Claim]:
    """One writer call: claims with ids (structured), else prose read back as claims; its
    first `keep`, the reply ended once it has written them."""
    messages = [SystemMessage(content=system), HumanMessage(content=prompt)]
    watch = claims_complete(keep, structured=structured, read_prose=claims_from_prose)
    with stop_reply_when(watch):
        if structured:
            draft = await invoke_structured(model, SectionDraft, messages, policy=policy, task=task)
            return list(draft.claims)[:keep]
        reply = await guarded_text_call(model, messages, policy=policy, task=task)
    return claims_from_prose(reply.text)[:keep]


async def write_section(
    model: BaseChatModel,
    section: SectionInput,
    numbers: SourceNumbers,
    *,
    date: str,
    structured: bool,
    policy: RetryPolicy,
) -> WrittenSection:
    """The section written by the model, else its findings cited to their passages."""
    known = {p.number: p.locator for p in section.passages}
    system, prompt = SECTION_PROMPT.format(date=date), section.prompt()
    if _fits(system, prompt):
        try:
            claims = await draft_claims(
                model,
                system,
                prompt,
                structured=structured,
                policy=policy,
                task=ModelTask(role="section", section=section.payload()),
            )
        except Exception:
            claims = []
        sentences = cited_sentences(claims, known, numbers, section.passage_texts())
        if sentences:
            left_out = findings_left_out(section, claims, sentences, MAX_CLAIMS - len(sentences))
            sentences += cited_sentences(left_out, known, numbers, said=sentences)
            return WrittenSection(section.heading, sentences, written_by_model=True)
    findings = [Claim(text=text, source_ids=ids) for text, ids in section.findings]
    return WrittenSection(
        section.heading, cited_sentences(findings, known, numbers), written_by_model=False
    )


def findings_left_out(
    section: SectionInput,
    claims: Sequence[Claim],
    written: Sequence[tuple[str, list[int]]],
    room: int,
) -> list[Claim]:
    """The section's findings from passages the written claims cite none of, and that the
    written sentences do not already say, up to `room`.

    Seen on the 1.5B: a section written from its first passage alone, four sentences, while
    the track's findings from another page held the answer ("autovacuum_vacuum_scale_factor:
    Specifies a fraction of the table size to add to autovacuum_vacuum_threshold when deciding
    whether to trigger a VACUUM"). A writer that uses a finding cites its passage, so what it
    cites it has said in its own words; a finding whose passages it never cites follows as
    the researcher recorded it, unless it says what the section says (a writer citing
    another page for the same fact)."""
    if room <= 0:
        return []
    cited = {number for claim in claims for number in claim.source_ids}
    texts = [text for text, _ in written]
    left_out: list[Claim] = []
    for text, ids in section.findings:
        if len(left_out) >= room:
            break
        if not ids or cited.intersection(ids):
            continue
        if texts and score_claim(text, texts).status == "supported":
            continue
        left_out.append(Claim(text=text, source_ids=ids))
    return left_out


def _fits(system: str, prompt: str) -> bool:
    """Whether the writer's call, priced at what it reads and writes, stays under the caps."""
    return call_fits(call_tokens((system, prompt), SECTION_OUTPUT_TOKENS))


def summary_prompt(question: str, sections: Sequence[WrittenSection]) -> str:
    payload = summary_payload(question, sections)
    return f"{SECTION_INPUT_HEADING}\n{json.dumps(payload, ensure_ascii=False)}"


def summary_payload(question: str, sections: Sequence[WrittenSection]) -> dict[str, Any]:
    """What the summary is written from: the question and each section's cited sentences."""
    return {
        "question": question,
        "sections": [
            {
                "heading": section.heading,
                "sentences": [
                    {"text": text, "sources": numbers} for text, numbers in section.sentences
                ],
            }
            for section in sections
            if section.sentences
        ],
    }


async def write_summary(
    model: BaseChatModel,
    question: str,
    sections: Sequence[WrittenSection],
    numbers: SourceNumbers,
    *,
    date: str,
    structured: bool,
    policy: RetryPolicy,
) -> list[tuple[str, list[int]]]:
    """A short summary from the written sections, citing the sources they cite (empty when
    there is nothing to summarise or the model cannot)."""
    cited = {n for section in sections for _, ns in section.sentences for n in ns}
    system, prompt = SUMMARY_PROMPT.format(date=date), summary_prompt(question, sections)
    if not cited or not _fits(system, prompt):
        return []
    try:
        claims = await draft_claims(
            model,
            system,
            prompt,
            structured=structured,
            policy=policy,
            task=ModelTask(role="summary", section=summary_payload(question, sections)),
            keep=SUMMARY_CLAIMS,
        )
    except Exception:
        return []
    known = {n: numbers.order[n - 1] for n in cited}
    summary = said_by_the_sections(cited_sentences(claims, known, numbers), sections)
    # A small model given every section often copies them, and the reader would read them
    # twice (so would sections' opening sentences put in its place): a copy is no summary.
    return [] if _copies_the_sections(summary, sections) else summary


def said_by_the_sections(
    summary: Sequence[tuple[str, list[int]]], sections: Sequence[WrittenSection]
) -> list[tuple[str, list[int]]]:
    """The summary's sentences that the sections' sentences citing the same sources support.

    The summary is written from the sections, so what they do not say it has from elsewhere:
    seen on the 1.5B, an opening of its own ("Apache httpd can compress responses … by using
    the mod_deflate, mod_brotli, and mod_expires modules.") and a comparison no page makes,
    the first lines a reader reads, each then marked unsupported by grounding. When none is
    found in the sections, the summary is kept whole."""
    kept: list[tuple[str, list[int]]] = []
    for text, cited in summary:
        said = {
            number: " ".join(
                sentence
                for section in sections
                for sentence, numbers in section.sentences
                if number in numbers
            )
            for number in cited
        }
        passages, owners = list(said.values()), [str(number) for number in said]
        supported = [
            sentence
            for sentence in PROSE_SENTENCE_BREAK_RE.split(text)
            if score_claim(sentence, passages, owners).status == "supported"
        ]
        if supported:
            kept.append((" ".join(supported), cited))
    # A summary none of whose sentences a word check finds in the sections may paraphrase
    # them well (a strong model's does): grounding decides it against every source instead.
    return kept or list(summary)


def _copies_the_sections(
    summary: Sequence[tuple[str, list[int]]], sections: Sequence[WrittenSection]
) -> bool:
    """Most of the summary's sentences are sentences of the sections, word for word (quotes,
    backticks and other marks aside: "an autovacuum facility" copies 'an "autovacuum"
    facility'), however the two group them into claims."""

    def sentences(texts: Sequence[str]) -> list[str]:
        return [
            " ".join(_WORD.findall(sentence.casefold()))
            for text in texts
            for sentence in PROSE_SENTENCE_BREAK_RE.split(text)
        ]

    said = sentences([text for text, _ in summary])
    written = set(sentences([text for section in sections for text, _ in section.sentences]))
    return bool(said) and sum(sentence in written for sentence in said) * 2 > len(said)
