"""Scoping heuristics of the offline model: clarify, brief, route and plan from the question.

Plans are derived from the words of the question only (plus the titles of grounding search
results when the planner was given some): comparisons split into their sides, further key
phrases become aspects, and fixed aspect templates fill the plan up to its minimum size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.models.offline.sources import parse_search_results
from engine.models.offline.text import STOPWORDS, content_words, is_code_name, terms
from engine.schemas import MAX_TRACKS, MIN_TRACKS, ResearchPlan

_TOKEN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#./'-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_COMPARE_PATTERNS = (
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus|compared (?:to|with)|against)\s+(?P<b>.+)", re.I),
    re.compile(
        r"(?:compare|comparing|comparison of|differences? between|contrast)\s+"
        r"(?P<a>.+?)\s+(?:and|with|to)\s+(?P<b>.+)",
        re.I,
    ),
    re.compile(r"(?:should i use|choose between|pick)\s+(?P<a>.+?)\s+or\s+(?P<b>.+)", re.I),
)
_CONTEXT_SPLIT_RE = re.compile(r"\s+(?:for|in|when|on|regarding|with respect to|under)\s+", re.I)
_DEEP_MARKERS = re.compile(
    r"\b(?:compare|comparison|comparing|versus|vs\.?|analy[sz]e|analysis|why|trade-?offs?|"
    r"pros and cons|evaluate|assessment|in depth|in-depth|comprehensive|survey|"
    r"differ|differences?)\b",
    re.I,
)
_LOOKUP_START = re.compile(
    r"^\s*(?:what is|what are|what's|who is|who was|who are|when|where|define|which year)\b", re.I
)
_FEEDBACK_RE = re.compile(
    r"^\s*(?:#+\s*)?(?:reviewer feedback|revision feedback|feedback|requested changes?|"
    r"apply this feedback)\s*:\s*(?P<text>\S.*)$",
    re.I | re.M,
)
_TITLE_CUT_RE = re.compile(r"\s+[—|–-]\s+|\s*:\s+")
_QUICK_WORD_LIMIT = 8
_LOOKUP_WORD_LIMIT = 10
_MAX_SUBJECT_WORDS = 6


def phrases(text: str) -> list[str]:
    """Runs of consecutive content words, original casing kept: the question's key phrases."""
    found: list[str] = []
    run: list[str] = []
    for token in _TOKEN_RE.findall(text):
        lowered = token.lower().strip("'")
        if lowered in STOPWORDS or len(lowered) < 2:
            if run:
                found.append(" ".join(run))
                run = []
            continue
        run.append(token)
    if run:
        found.append(" ".join(run))
    return found


def subject_of(text: str) -> str:
    """The question's content words, at most six, as one short search phrase."""
    kept = [token for phrase in phrases(text) for token in phrase.split()]
    return " ".join(kept[:_MAX_SUBJECT_WORDS])


def search_phrase(text: str) -> str:
    """At most six content words as one search phrase, the question's code names always among
    them (they come last in "what does X return when…" as often as first), in its order: a
    question's names are its most specific words, and the page that answers it names them too."""
    tokens = [token for phrase in phrases(text) for token in phrase.split()]
    names = [i for i, token in enumerate(tokens) if is_code_name(token)][:_MAX_SUBJECT_WORDS]
    others = [i for i in range(len(tokens)) if i not in names]
    kept = sorted(names + others[: max(_MAX_SUBJECT_WORDS - len(names), 0)])
    return " ".join(tokens[i] for i in kept)


def needs_clarification(question: str, *, already_asked: bool) -> bool:
    """Ask only about a bare topic: a single word, or words that name nothing.

    "What is asyncio?" or "PEP 492" can be researched as they stand; "asyncio?" could mean
    how it works, how to use it or how it compares, so it gets the one question.
    """
    if already_asked:
        return False
    return not content_words(question) or len(question.split()) < 2


def clarifying_question(question: str) -> str:
    topic = question.strip().rstrip("?.!") or "this topic"
    return (
        f"What would you like to know about {topic}: how it works, how to use it, "
        "or how it compares with alternatives?"
    )


def brief_for(question: str) -> str:
    """The question restated as a brief; the labelled first line lets later roles find it."""
    subject = subject_of(question) or question
    return (
        f"Research question: {question.strip()}\n"
        f"Investigate {subject} using retrieved sources only, and answer the question with "
        "findings that each cite the source they were quoted from."
    )


def route_for(question: str) -> tuple[str, str]:
    """`quick` for short lookups, `deep` for comparisons, analyses and longer questions."""
    deep_marker = _DEEP_MARKERS.search(question)
    if deep_marker:
        return "deep", f"the question asks for {deep_marker.group(0).lower()}: research in depth"
    if _LOOKUP_START.search(question) and len(question.split()) <= _LOOKUP_WORD_LIMIT:
        return "quick", "a short factual lookup"
    if len(question.split()) < _QUICK_WORD_LIMIT:
        return "quick", f"a short question of {len(question.split())} words"
    return "deep", "a broad question that benefits from a research plan"


@dataclass(frozen=True)
class _Draft:
    title: str
    section: str
    queries: tuple[str, ...]


def _clean(phrase: str, limit: int = 120) -> str:
    text = " ".join(phrase.split()).strip(" ?.!,;:")
    return text[:limit].rstrip()


def _comparison(question: str) -> tuple[str, str, str] | None:
    """(side A, side B, context) when the question compares two things."""
    for pattern in _COMPARE_PATTERNS:
        match = pattern.search(question)
        if not match:
            continue
        parts = _CONTEXT_SPLIT_RE.split(match.group("b"), maxsplit=1)
        side_b = subject_of(parts[0])
        context = subject_of(parts[1]) if len(parts) > 1 else ""
        side_a = subject_of(match.group("a"))
        if side_a and side_b and side_a.lower() != side_b.lower():
            return side_a, side_b, context
    return None


def _section_name(phrase: str) -> str:
    return phrase if len(phrase) >= 3 else f"About {phrase}"


def _comparison_drafts(a: str, b: str, context: str) -> list[_Draft]:
    drafts = [
        _Draft(f"{a}: characteristics", _section_name(a), (a, f"{a} {context}".strip())),
        _Draft(f"{b}: characteristics", _section_name(b), (b, f"{b} {context}".strip())),
        _Draft(
            f"{a} versus {b}: key differences",
            "Key differences",
            (f"{a} {b}", f"{a} {b} difference"),
        ),
    ]
    if context:
        drafts.append(
            _Draft(
                f"{a} and {b} for {context}",
                f"Fit for {context}",
                (f"{a} {context}", f"{b} {context}"),
            )
        )
    drafts.append(
        _Draft(
            f"{a} and {b}: trade-offs and pitfalls",
            "Trade-offs and pitfalls",
            (f"{a} limitations", f"{b} limitations"),
        )
    )
    return drafts


def _sub_phrases(subject: str) -> list[str]:
    """Adjacent word pairs of the subject: narrower queries that reach different passages."""
    tokens = subject.split()
    pairs = [" ".join(tokens[i : i + 2]) for i in range(len(tokens) - 1)]
    return pairs or [subject]


# (title suffix, section, query keywords): the aspects every explanatory question has.
_ASPECTS = (
    ("overview", "Overview", ("", "introduction")),
    ("how it works", "How it works", ("behaviour", "details")),
    ("usage and examples", "Usage and examples", ("example", "usage")),
    ("pitfalls and limitations", "Pitfalls and limitations", ("error", "exception")),
)


def _aspect_drafts(subject: str) -> list[_Draft]:
    pairs = _sub_phrases(subject)
    drafts = []
    for number, (suffix, section, (first, second)) in enumerate(_ASPECTS):
        pair = pairs[number % len(pairs)]
        drafts.append(
            _Draft(
                f"{subject}: {suffix}",
                section,
                (f"{subject} {first}".strip(), f"{pair} {second}".strip()),
            )
        )
    return drafts


def _phrase_drafts(question: str, subject: str) -> list[_Draft]:
    """A track per key phrase of a question with several of them."""
    found = [_clean(p) for p in phrases(question)]
    found = [p for p in found if len(p) >= 3]
    if len(found) < 2:
        return []
    drafts = []
    for phrase in found[:3]:
        others = [w for w in subject.split() if w.lower() not in phrase.lower().split()][:2]
        drafts.append(
            _Draft(
                f"{phrase} in context",
                _section_name(phrase.capitalize()),
                (phrase, " ".join([phrase, *others])),
            )
        )
    return drafts


def _grounding_drafts(prompt: str, subject: str) -> list[_Draft]:
    """Tracks named after the strongest grounding results, so the outline fits what exists."""
    subject_terms = terms(subject)
    drafts: list[_Draft] = []
    seen: set[str] = set()
    for source in parse_search_results(prompt):
        title = _clean(_TITLE_CUT_RE.split(source.title, maxsplit=1)[0], 80)
        title_terms = terms(title)
        if len(title) < 3 or not title_terms or title_terms <= subject_terms:
            continue
        if title.casefold() in seen:
            continue
        seen.add(title.casefold())
        keywords = " ".join(w for w in content_words(title)[:4])
        drafts.append(_Draft(f"{subject} in {title}", title, (f"{subject} {keywords}", keywords)))
        if len(drafts) == 2:
            break
    return drafts


def _feedback_drafts(prompt: str, subject: str) -> list[_Draft]:
    drafts = []
    for match in _FEEDBACK_RE.finditer(prompt):
        focus = subject_of(match.group("text"))
        if focus:
            drafts.append(
                _Draft(f"{focus} (requested)", focus.capitalize(), (f"{subject} {focus}", focus))
            )
    return drafts


def _unique_queries(queries: tuple[str, ...]) -> list[str]:
    kept: list[str] = []
    for query in queries:
        cleaned = _clean(query, 300)
        if cleaned and cleaned.lower() not in {q.lower() for q in kept}:
            kept.append(cleaned)
    return kept[:3]


def plan_for(question: str, prompt: str = "") -> ResearchPlan:
    """A valid plan of 3–6 tracks for the question; `prompt` may carry grounding and feedback."""
    subject = _clean(subject_of(question) or question, 80) or "the question"
    comparison = _comparison(question)
    drafts = _feedback_drafts(prompt, subject)
    if comparison is not None:
        drafts += _comparison_drafts(*comparison)
    else:
        drafts += _phrase_drafts(question, subject)
        drafts += _grounding_drafts(prompt, subject)
        drafts += _aspect_drafts(subject)
    target = _target_size(comparison is not None, prompt)
    tracks: list[dict[str, object]] = []
    sections: set[str] = set()
    titles: set[str] = set()
    for draft in drafts:
        title, section = _clean(draft.title, 200), _clean(draft.section, 200)
        if len(section) < 3 or section.casefold() in sections or title.casefold() in titles:
            continue
        queries = _unique_queries(draft.queries)
        if not queries:
            continue
        sections.add(section.casefold())
        titles.add(title.casefold())
        tracks.append({"title": title, "section": section, "queries": queries})
        if len(tracks) >= target:
            break
    return ResearchPlan.model_validate(
        {
            "scope": f"In scope: {question.strip()} Out of scope: anything no retrieved "
            "source supports.",
            "tracks": tracks[:MAX_TRACKS],
            "evidence_strategy": "Quote sentences from retrieved sources; every claim cites "
            "the source it came from.",
            "output_format": "A report with one section per track, a summary and a numbered "
            "Sources list.",
        }
    )


def _target_size(is_comparison: bool, prompt: str) -> int:
    """Four tracks normally; comparisons and revised plans may use up to the maximum."""
    if is_comparison or _FEEDBACK_RE.search(prompt):
        return MAX_TRACKS
    return MIN_TRACKS + 1


def overlap(a: str, b: str) -> float:
    """Share of `a`'s terms found in `b` (0..1): how well a sentence fits a track."""
    a_terms = terms(a)
    if not a_terms:
        return 0.0
    return len(a_terms & terms(b)) / len(a_terms)
