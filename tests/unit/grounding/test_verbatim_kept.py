"""A sentence cut from what a source returned is never removed, whatever else the page says.

The pages are the sample corpus's indexed text (docs/samples), read as the verifier reads a
local document; the registry holds only a short excerpt of each, as a session's would.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.citations.registry import SourceRegistry
from engine.grounding.enforce import ground_report
from engine.grounding.passages import Passage
from engine.grounding.verbatim import found_verbatim
from engine.tools.local_index.index import LocalIndex
from tests.helpers.sample_index import SAMPLES, seed_sample_index

PAGES = (
    "subprocess.html",
    "asyncio-eventloop.html",
    "asyncio-protocol.html",
    "asyncio-queue.html",
    "multiprocessing.html",
)
MARKERS = ("[{n}]", "[^{n}]", "【{n}†L1-L5】", "[{n}, {m}]", "(Source {n})")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = seed_sample_index(tmp_path_factory.mktemp("verbatim"))
    index = LocalIndex(data / "index.sqlite", SAMPLES)
    found = {key: index.document(key) for key in PAGES}
    return {key: document.text for key, document in found.items() if document is not None}


def _registry(texts: dict[str, str]) -> SourceRegistry:
    registry = SourceRegistry()
    for key, text in texts.items():
        # One stored excerpt, from the page's head: what a search snippet would have kept.
        registry.add_document(key, key, text[:300])
    return registry


def _grounded(texts: dict[str, str], report: str, sources: dict[int, str]):  # type: ignore[no-untyped-def]
    return ground_report(
        report,
        original=report,
        sources=sources,
        registry=_registry(texts),
        mode="strict",
        document_text=texts.get,
    )


def _report(sentence: str, marker: str, sources: dict[int, str]) -> str:
    entries = "\n".join(f"[{n}] {key} — {key}" for n, key in sources.items())
    return f"# Answer\n\n{sentence} {marker}\n\n## Sources\n{entries}\n"


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_sentence_cut_from_a_retrieved_page_is_kept(texts: dict[str, str], data) -> None:  # type: ignore[no-untyped-def]
    key = data.draw(st.sampled_from(sorted(texts)))
    other = data.draw(st.sampled_from(sorted(texts)))
    lines = [line for line in texts[key].split("\n") if line.strip() and not line.startswith("#")]
    line = data.draw(st.sampled_from(lines))
    # A report's prose: not a quote, table or heading line (those are not claims).
    pieces = [p.lstrip(" -*>#|") for p in _SENTENCE.split(line) if len(p.split()) >= 4]
    if not pieces:
        return
    sentence = data.draw(st.sampled_from(pieces))
    marker = data.draw(st.sampled_from(MARKERS)).format(n=1, m=2)
    sources = {1: key, 2: other}
    grounded = _grounded(texts, _report(sentence, marker, sources), sources)
    assert not grounded.removed, [(c.text, c.reason) for c in grounded.removed]
    cited = [c for c in grounded.claims if 1 in c.numbers]
    assert cited and all(c.action == "kept" for c in cited), [(c.text, c.reason) for c in cited]


@pytest.mark.parametrize(
    ("sentence", "key", "excerpt"),
    [
        # The page also says "If the stdout argument was PIPE, …": no contradiction.
        (
            "If the stdout argument was not PIPE, this attribute is None. [1]",
            "subprocess.html",
            "If the stdout argument was not PIPE, this attribute is None",
        ),
        (
            "If the stderr argument was not PIPE, this attribute is None. [1]",
            "subprocess.html",
            "If the stderr argument was not PIPE, this attribute is None.",
        ),
        # Stated under create_connection; the stored excerpt is about call_soon.
        (
            "loop.create_connection(): The socket type will be SOCK_STREAM. [1]",
            "asyncio-eventloop.html",
            "The socket type will be SOCK_STREAM",
        ),
        # The page's example names DateProtocol beside the base protocol classes.
        (
            "Create the subprocess controlled by DateProtocol; redirect the standard output "
            "into a pipe. [1]",
            "asyncio-protocol.html",
            "Create the subprocess controlled by DateProtocol; redirect the standard output "
            "into a pipe",
        ),
    ],
)
def test_true_sentences_of_the_deep_run_are_kept_with_the_passage_that_decided(
    texts: dict[str, str], sentence: str, key: str, excerpt: str
) -> None:
    registry = SourceRegistry()
    # The one excerpt the report stored was about something else on the page.
    registry.add_document(key, key, "loop.call_soon(callback, *args) schedules a callback.")
    report = _report(sentence.rsplit(" [", 1)[0], "[1]", {1: key})
    grounded = ground_report(
        report,
        original=report,
        sources={1: key},
        registry=registry,
        mode="strict",
        document_text=texts.get,
    )
    assert grounded.report == report
    (claim,) = grounded.claims
    assert (claim.action, claim.status, claim.decided_by) == ("kept", "supported", "quote")
    assert claim.passage_source == key and claim.excerpt.replace("*", "") == excerpt.rstrip(".")
    page = " ".join(texts[key].split())
    # The audit's position points at those words in the text the source returned.
    assert claim.passage_number == 1
    assert page[claim.passage_offset :].replace("*", "").startswith(excerpt)


def test_without_the_page_text_only_the_stored_excerpt_is_read(texts: dict[str, str]) -> None:
    registry = SourceRegistry()
    registry.add_document("asyncio-eventloop.html", "loop", "loop.call_soon schedules a callback.")
    report = _report(
        "loop.create_connection(): The socket type will be SOCK_STREAM.",
        "[1]",
        {1: "asyncio-eventloop.html"},
    )
    without = ground_report(
        report,
        original=report,
        sources={1: "asyncio-eventloop.html"},
        registry=registry,
        mode="strict",
    )
    # What the old check saw: one excerpt about something else, so the rules alone decide.
    assert (without.claims[0].decided_by, without.claims[0].status) == ("rule", "unsupported")


_WORDS = st.text(
    # Letters whose casefold is longer than themselves among them (ß, İ, ŉ, ﬁ).
    alphabet=st.sampled_from("abcXYZßİŉﬁéΣσ0123"),
    min_size=1,
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(_WORDS, min_size=6, max_size=30), data=st.data())
def test_a_run_of_a_passage_s_words_is_found_where_it_stands(words, data) -> None:  # type: ignore[no-untyped-def]
    from engine.grounding.passages import Passage
    from engine.grounding.verbatim import found_verbatim

    text = " ".join(words) + "."
    start = data.draw(st.integers(0, len(words) - 4))
    end = data.draw(st.integers(start + 4, len(words)))
    sentence = " ".join(words[start:end])
    match = found_verbatim(sentence, [Passage("page", 0, text)])
    assert match is not None
    assert text[match.offset :].startswith(match.words)
    assert match.words.casefold().split() == sentence.casefold().split()


def test_a_sentence_quoted_under_its_entry_is_found_where_the_entry_names_it() -> None:
    page = [
        Passage(
            source="runtime-config-autovacuum.html",
            number=1,
            text=(
                "- autovacuum_analyze_threshold (integer) - Specifies the minimum number of "
                "inserted, updated or deleted tuples needed to trigger an ANALYZE in any one "
                "table. The default is 50 tuples. - autovacuum_naptime (integer) - Specifies "
                "the minimum delay between autovacuum runs on any given database."
            ),
        )
    ]

    assert found_verbatim("autovacuum_analyze_threshold: The default is 50 tuples [1].", page)
    # Under another entry's name the same words are not the page's statement.
    assert found_verbatim("autovacuum_naptime: The default is 50 tuples [1].", page) is None
