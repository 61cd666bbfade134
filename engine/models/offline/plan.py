"""Scoping heuristics of the offline model: clarify, brief, route and plan from the question.

Plans are derived from the words of the question only (plus the titles of grounding search
results when the planner was given some): comparisons split into their sides, further key
phrases become aspects, and fixed aspect templates fill the plan up to its minimum size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.models.offline.sources import parse_search_results
from engine.models.offline.text import content_words, is_code_name, terms
from engine.schemas import MAX_TRACKS, MIN_TRACKS, ResearchPlan
from engine.text.stopwords import is_question_stopword

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
_TITLE_CUT_RE = re.compile(r"\s+[—|–-]\s+|\s*:\s+")
_QUICK_WORD_LIMIT = 8
_LOOKUP_WORD_LIMIT = 10
_MAX_SUBJECT_WORDS = 6
# "How do X and Y <verb> …": a plural subject, its verb bare.
_PLURAL_SUBJECT_Q = re.compile(
    r"^\s*(?:how|why|when|where)\s+(?:do|did|can|could|should|would|will|might|must)\b", re.I
)
_NOT_PLURAL = ("ss", "us", "is", "ics")
_LONE_PARTICIPLE_RE = re.compile(r"^[a-z]+(?:ed|ing)$")
# What a question asks for comes right after its question word: "In which Python version",
# "What is the numeric value".
_ASKED_KIND = r"^\s*(?:\w+\s+)?(?:which|what)\s+(?:(?:is|are|was|were)\s+(?:the|an?)\s+)?"
_OBJECT_QUESTION_RE = re.compile(r"^\s*(?:\w+\s+)?(?:which|what)\s+[^?]*?\b(?:does|do|did)\s", re.I)
_FRAME_WORD_RE = re.compile(r"^happen(?:s|ed|ing)?$", re.I)
_SINGULAR_SUBJECT_Q = re.compile(r"^\s*(?:how|why|when|where)\s+(?:does|is|was|has)\b", re.I)


def phrases(text: str) -> list[str]:
    """Runs of consecutive content words, original casing kept: the question's key phrases.
    The words that ask "what happens" are the question's form, not its subject: no page
    that answers it need say "happens"."""
    found: list[str] = []
    run: list[str] = []
    for token in _TOKEN_RE.findall(text):
        written = token.strip("'")
        if is_question_stopword(written) or len(written) < 2 or _FRAME_WORD_RE.match(written):
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
    """A heading for a phrase: capitalised as a title (a code name kept as written)."""
    if len(phrase) < 3:
        return f"About {phrase}"
    first = phrase.split()[0]
    if is_code_name(first) or not phrase[0].islower():
        return phrase
    return phrase[0].upper() + phrase[1:]


def _looks_plural(word: str) -> bool:
    plural = word.endswith("s") and not word.endswith(_NOT_PLURAL)
    return word.isalpha() and len(word) > 3 and plural


def _subject_part(phrase: str) -> str:
    """A phrase of a question whose subject is plural ("How do … locks coordinate tasks?")
    without its verb and object: the noun run that ends where a bare verb follows a plural."""
    words = phrase.split()
    for index in range(1, len(words)):
        verb = words[index]
        if (
            _looks_plural(words[index - 1])
            and verb.isalpha()
            and verb.islower()
            and not verb.endswith(("s", "ing", "ed"))
        ):
            return " ".join(words[:index])
    return phrase


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
    # A lone participle ("raised", "given") is part of the question's grammar, not a topic.
    found = [p for p in found if len(p) >= 3 and not _LONE_PARTICIPLE_RE.match(p)]
    if len(found) < 2:
        return []
    if re.match(rf"{_ASKED_KIND}{re.escape(found[0])}\b", question, re.I):
        # "In which Python version…", "Which exception…": the kind of answer asked for is no
        # topic of the report.
        found = found[1:]
        if _OBJECT_QUESTION_RE.match(question) and found and len(found[0].split()) > 1:
            # "What pattern does unittest discovery match…": the subject, then its verb.
            found[0] = found[0].rsplit(" ", 1)[0]
    if _SINGULAR_SUBJECT_Q.match(question) and found and len(found[0].split()) > 2:
        # "How does asyncio handle task cancellation and timeouts?": the first phrase is the
        # subject and its verb, which no heading can name; the aspects cover it.
        found = found[1:]
    if sum(len(p.split()) > 1 or is_code_name(p) for p in found) >= 2:
        # Among named topics, a lone plain word ("given", "exception") is the question's
        # grammar or its answer, not a topic.
        found = [p for p in found if len(p.split()) > 1 or is_code_name(p)]
    # The phrases that name code come first: they are what the question is about.
    found.sort(key=lambda p: not any(is_code_name(word) for word in p.split()))
    plural_subject = bool(_PLURAL_SUBJECT_Q.match(question))
    drafts = []
    for phrase in found[:3]:
        # A heading names what the question is about, not what it asks it to do.
        heading = _subject_part(phrase) if plural_subject else phrase
        words = heading.split()
        while len(words) > 1 and _LONE_PARTICIPLE_RE.match(words[-1]):
            words.pop()  # "functools.cache decorator added" -> "functools.cache decorator"
        others = [w for w in subject.split() if w.lower() not in phrase.lower().split()][:2]
        drafts.append(
            _Draft(phrase, _section_name(" ".join(words)), (phrase, " ".join([phrase, *others])))
        )
    return drafts


def _grounding_drafts(search_results: str, subject: str) -> list[_Draft]:
    """Tracks named after the strongest grounding results, so the outline fits what exists."""
    subject_terms = terms(subject)
    drafts: list[_Draft] = []
    seen: set[str] = set()
    for source in parse_search_results(search_results):
        title = _clean(_TITLE_CUT_RE.split(source.title, maxsplit=1)[0], 80)
        title_terms = terms(title)
        # A page that shares none of the question's words is not one of its topics.
        if len(title) < 3 or title_terms <= subject_terms or not title_terms & subject_terms:
            continue
        if title.casefold() in seen:
            continue
        seen.add(title.casefold())
        keywords = " ".join(w for w in content_words(title)[:4])
        drafts.append(
            _Draft(
                f"{subject} in {title}", _section_name(title), (f"{subject} {keywords}", keywords)
            )
        )
        if len(drafts) == 2:
            break
    return drafts


def _feedback_drafts(feedback: str, subject: str) -> list[_Draft]:
    focus = subject_of(" ".join(feedback.split())) if feedback.strip() else ""
    if not focus:
        return []
    return [_Draft(f"{focus} (requested)", _section_name(focus), (f"{subject} {focus}", focus))]


def _unique_queries(queries: tuple[str, ...]) -> list[str]:
    kept: list[str] = []
    for query in queries:
        cleaned = _clean(query, 300)
        if cleaned and cleaned.lower() not in {q.lower() for q in kept}:
            kept.append(cleaned)
    return kept[:3]


def plan_for(question: str, search_results: str = "", *, feedback: str = "") -> ResearchPlan:
    """A valid plan of 3–6 tracks for the question, named after what the grounding
    `search_results` found; `feedback` asks for a track of its own."""
    subject = _clean(search_phrase(question) or question, 80) or "the question"
    comparison = _comparison(question)
    drafts = _feedback_drafts(feedback, subject)
    if comparison is not None:
        drafts += _comparison_drafts(*comparison)
    else:
        subjects = _phrase_drafts(question, subject)
        drafts += subjects
        if not subjects:
            # The question names one subject: the documentation's own titles name its parts.
            drafts += _grounding_drafts(search_results, subject)
        drafts += _aspect_drafts(subject)
    target = _target_size(comparison is not None, bool(feedback.strip()))
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


def _target_size(is_comparison: bool, revised: bool) -> int:
    """Four tracks normally; comparisons and revised plans may use up to the maximum."""
    if is_comparison or revised:
        return MAX_TRACKS
    return MIN_TRACKS + 1


def overlap(a: str, b: str) -> float:
    """Share of `a`'s terms found in `b` (0..1): how well a sentence fits a track."""
    a_terms = terms(a)
    if not a_terms:
        return 0.0
    return len(a_terms & terms(b)) / len(a_terms)
