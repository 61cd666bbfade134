"""Properties over random answers mixing every citation format real models write.

Each generated answer cites a pool of sources, some retrieved (in the registry) and some not,
through a random mix of marker styles, named citations, links, bare URLs and document keys,
with a sources list in a random heading and entry style. Whatever the mix:

- no citation that survives points at a source that was not retrieved;
- every retrieved source the answer cited survives, listed and cited in the body;
- the report ends with exactly one canonical sources section, numbered in order of first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.citations.markers import find_inline_markers
from engine.citations.registry import SourceRegistry
from engine.citations.results import CheckedReport
from engine.citations.sanitize import sanitize_report
from engine.citations.scanning import code_spans, find_urls
from engine.citations.sections import parse_report
from engine.citations.verify import verify_citations


@dataclass(frozen=True)
class PoolSource:
    """A source a model may cite: `locator` as a tool returns it, `title` as pages show it."""

    locator: str
    title: str
    is_url: bool


# Distinct hosts and title words: no source's address is a prefix of another's and no title's
# words are a subset of another's, so every citation has exactly one right answer.
POOL = [
    PoolSource("https://alpha-journal.org/articles/wal-design", "Alpha Journal Wal Design", True),
    PoolSource("https://beta-docs.net/guide/checkpoints", "Beta Checkpoints Guide", True),
    PoolSource("https://gamma-blog.io/posts/task-groups", "Gamma Taskgroup Notes", True),
    PoolSource("https://delta-wiki.com/wiki/Interpreter_lock", "Delta Interpreter Lock", True),
    PoolSource("https://epsilon-news.com/2024/readers", "Epsilon Readers Report", True),
    PoolSource("https://zeta-forum.org/t/cancel-scopes", "Zeta Cancellation Thread", True),
    PoolSource("manual.pdf, p.3", "Operations Manual", False),
    PoolSource("handbook.pdf, p.12", "Staff Handbook", False),
    PoolSource("notes.md", "Meeting Notes", False),
    PoolSource("runbook.pdf, p.5", "Incident Runbook", False),
]
WORDS = ["readers", "writers", "checkpoint", "latency", "tasks", "cancel", "lock", "pages"]


def _url_variant(url: str, how: int) -> str:
    """How a writer misspells a URL it did retrieve (the registry must still match it)."""
    return [url, url + "/", url + "?utm_source=chat", url + "#section-2"][how]


def _key_variant(key: str, how: int) -> str:
    """How a writer spells a page-anchored document key."""
    name, _, page = key.partition(", p.")
    if not page:
        return key
    return [key, f"{name} p. {page}", f"{name} page {page}", f"{name}#page={page}",
            f"{name} (page {page})", f"{name}, p.{page}"][how]  # fmt: skip


def _written(source: PoolSource, how: int) -> str:
    if source.is_url:
        return _url_variant(source.locator, how % 4)
    return _key_variant(source.locator, how)


ENTRY_STYLES = ["[{n}] {title} — {loc}", "{n}. {title}: {loc}", "{n}) {title} <{loc}>",
                "[^{n}]: {title}, {loc}", "- {title} - {loc}", "* [{title}]({loc})",
                "{n}. {title}\n   {loc}", "Source {n}: {title} {loc}"]  # fmt: skip
HEADINGS = ["## Sources", "## References", "### Sources", "**References:**", "**Sources**",
            "Sources:", "References:", "Bibliography", "Works cited", "Citations"]  # fmt: skip
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass
class Answer:
    text: str
    cited_retrieved: set[str]


@st.composite
def answers(draw: st.DrawFn) -> tuple[Answer, SourceRegistry]:
    retrieved = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=len(POOL)))
    registry = SourceRegistry()
    for source in retrieved:
        (registry.add_url if source.is_url else registry.add_document)(source.locator, source.title)
    listed = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=7))
    style = draw(st.sampled_from(ENTRY_STYLES))
    entries = [
        style.format(n=n, title=s.title, loc=_written(s, draw(st.integers(0, 5))))
        for n, s in enumerate(listed, start=1)
    ]
    cited: set[str] = set()
    sentences = []
    superscript_style = draw(st.booleans())
    for _ in range(draw(st.integers(1, 8))):
        words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=5)))
        citation = _citation(draw, listed, retrieved, cited, superscript_style)
        sentences.append(f"Notably {words}{citation}.")
    separator = draw(st.sampled_from(["\n", "\n\n"]))
    heading = draw(st.sampled_from(HEADINGS))
    body = " ".join(sentences)
    text = f"{body}\n\n{heading}\n{separator.join(entries)}\n" if entries else body + "\n"
    return Answer(text, cited), registry


def _numbered(
    draw: st.DrawFn, numbers: list[int], superscript_style: bool
) -> tuple[str, list[int]]:
    """A numbered marker in a random style, and the numbers it really cites."""
    if superscript_style:
        return str(numbers[0]).translate(SUPERSCRIPTS), numbers[:1]
    joined = ", ".join(map(str, numbers))
    several = [f" [{joined}]", f" [{joined.replace(', ', ',')}]", f" (Sources {joined})",
               "".join(f"[^{n}]" for n in numbers)]  # fmt: skip
    first = numbers[0]
    single = [f"【{first}†source】", f" 【{first}†L2-L4】", f" (Source {first})",
              f" [Source {first}]"]  # fmt: skip
    choice = draw(st.integers(0, len(several) + len(single) - 1))
    if choice < len(several):
        return several[choice], numbers
    return single[choice - len(several)], numbers[:1]


def _citation(
    draw: st.DrawFn,
    listed: list[PoolSource],
    retrieved: list[PoolSource],
    cited: set[str],
    superscript_style: bool,
) -> str:
    """One random citation; records the source it must keep when that source was retrieved."""
    if listed and draw(st.booleans()):
        numbers = draw(st.lists(st.integers(1, len(listed) + 2), min_size=1, max_size=3))
        text, really = _numbered(draw, numbers, superscript_style)
        for number in really:
            if number <= len(listed) and listed[number - 1] in retrieved:
                cited.add(listed[number - 1].locator)
        return text
    source = draw(st.sampled_from(POOL))
    if source in retrieved:
        cited.add(source.locator)
    written = _written(source, draw(st.integers(0, 5)))
    forms = [f" [Source: {source.title}]", f" [Source: {written}]"]
    if source.is_url:
        forms += [f" ([{source.title}]({written}))", f" {written} ", f" <{written}>",
                  f" ({written})", f" [1]({written})"]  # fmt: skip
    else:
        forms += [f" [{written}]", f" (Source: {written})", f" (see {written})"]
    return draw(st.sampled_from(forms))


def check_report(text: str, registry: SourceRegistry) -> CheckedReport:
    """What the engine's verify node does: strict verification (nothing retrieved, nothing
    cited), then sanitization."""
    verification = verify_citations(text, registry, strict=True)
    sanitization = sanitize_report(verification.verified_report)
    return CheckedReport(
        report=sanitization.sanitized_report, verification=verification, sanitization=sanitization
    )


def _body_and_entries(report: str) -> tuple[str, dict[int, str]]:
    parsed = parse_report(report)
    entries = {entry.number: entry.locator or "" for entry in parsed.entries}
    return parsed.body_text(), entries


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(answers())
def test_any_mix_of_formats_keeps_exactly_the_retrieved_sources_it_cited(
    case: tuple[Answer, SourceRegistry],
) -> None:
    answer, registry = case
    checked = check_report(answer.text, registry)
    report = checked.report
    retrieved = {source.locator for source in registry.sources()}
    body, entries = _body_and_entries(report)

    # Nothing kept points at a source that was not retrieved.
    assert {c.source for c in checked.verification.valid_citations} <= retrieved
    assert set(entries.values()) <= retrieved, entries
    assert {url for _, _, url in find_urls(report)} <= retrieved
    markers = find_inline_markers(body, set(entries))
    cited_numbers = [number for marker in markers for number in marker.numbers]
    assert set(cited_numbers) <= set(entries), (cited_numbers, entries)

    # Every retrieved source the answer cited survives, listed and cited.
    cited_locators = {entries[number] for number in cited_numbers}
    assert answer.cited_retrieved <= cited_locators, (answer.cited_retrieved, report)

    # One canonical section ends the report, numbered 1..k in order of first use.
    if entries:
        assert report.count("## Sources") == 1
        assert re.search(r"\n## Sources\n(?:\[\d+\] [^\n]+\n?)+$", report), report
        assert list(entries) == list(range(1, len(entries) + 1))
        first_use = list(dict.fromkeys(cited_numbers))
        assert first_use == list(range(1, len(first_use) + 1)), first_use
    else:
        assert not answer.cited_retrieved


@FAST
@given(answers())
def test_checking_a_checked_report_changes_nothing(case: tuple[Answer, SourceRegistry]) -> None:
    answer, registry = case
    once = check_report(answer.text, registry)
    twice = check_report(once.report, registry)
    assert twice.report == once.report
    assert twice.verification.removed_citations == []


# Fragments of every format, shuffled into arbitrary (often malformed) text.
FRAGMENTS = [
    "alpha", "beta", "\n", "\n\n", ".", ",", "(", ")", "[1]", "[2, 3]", "[1-2]", "[^1]", "¹",
    "²˒³", "【1†source】", "(Source 1)", "(Sources 1 and 2)", "[Source 2]",
    "[Source: Beta Checkpoints Guide]", "[Source: https://alpha-journal.org/articles/wal-design]",
    "[text](https://gamma-blog.io/posts/task-groups)", "https://invented.example/x",
    "<https://beta-docs.net/guide/checkpoints>", "(manual.pdf, page 3)", "[notes.md]",
    "## Sources\n", "**References:**", "Sources:", "Bibliography\n", "Works cited\n",
    "[1] Alpha — https://alpha-journal.org/articles/wal-design\n",
    "2. Beta https://beta-docs.net/guide/checkpoints\n", "- Gamma https://gamma-blog.io/x\n",
    "* [Manual](manual.pdf#page=3)\n", "[^1]: Note https://zeta-forum.org/t/cancel-scopes\n",
    "Source 3: Runbook runbook.pdf p. 5\n", "1) Title\n   https://epsilon-news.com/2024/readers\n",
    "```", "`code [1]`", "E = mc²", "[2024]", "javascript:alert(1)", "https://bit.ly/x",
]  # fmt: skip
FRAGMENT_REGISTRY = SourceRegistry()
for _source in POOL[::2]:
    (FRAGMENT_REGISTRY.add_url if _source.is_url else FRAGMENT_REGISTRY.add_document)(
        _source.locator, _source.title
    )


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map(" ".join))
# A fence split from its closer by a consumed sources section (a marker after it was code in
# its block alone, prose once the blocks were joined).
@example(
    "alpha ``` ## Sources\n ## Sources\n [1] Alpha — https://alpha-journal.org/articles/wal-design"
    "\n ``` 【1†source】"
)
def test_arbitrary_mixed_text_keeps_every_guarantee(text: str) -> None:
    retrieved = {source.locator for source in FRAGMENT_REGISTRY.sources()}
    checked = check_report(text, FRAGMENT_REGISTRY)
    # Code is quoted material, not a citation: its URLs stay as written.
    code = code_spans(checked.report)
    prose_urls = {
        url
        for start, _, url in find_urls(checked.report)
        if not any(a <= start < b for a, b in code)
    }
    assert prose_urls <= retrieved
    assert {e.locator for e in parse_report(checked.report).entries} <= retrieved
    assert check_report(checked.report, FRAGMENT_REGISTRY).report == checked.report
    verified = verify_citations(text, FRAGMENT_REGISTRY).verified_report
    assert verify_citations(verified, FRAGMENT_REGISTRY).verified_report == verified
