"""Passage reranking: chunks, BM25, budgeted selection in document order, and fetch_url's use."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.citations.registry import SourceRegistry
from engine.tools.fetch import MAX_TEXT_CHARS
from engine.tools.local_index import LocalIndex
from engine.tools.rerank import (
    BLOCK_GAP,
    ELISION,
    head,
    query_terms,
    score_chunks,
    select_passages,
    split_chunks,
)
from engine.tools.toolkit import build_research_tools
from tests.fixtures.servers import local_settings
from tests.fixtures.web_server import WebServer

TOPICS = [
    "gardening",
    "astronomy",
    "baking",
    "sailing",
    "pottery",
    "chess",
    "geology",
    "origami",
    "beekeeping",
    "cycling",
]
ANSWER = (
    "The flux capacitor of the zebrafish reactor is recalibrated every 42 days by the "
    "chief engineer, who logs each recalibration."
)
QUESTION = "How often is the zebrafish reactor flux capacitor recalibrated?"


def filler(paragraphs: int) -> str:
    """Distinct, answer-free paragraphs of about 300 characters each."""
    out = []
    for i in range(paragraphs):
        topic = TOPICS[i % len(TOPICS)]
        out.append(
            f"Paragraph {i} is about {topic}. People who enjoy {topic} often spend weekends "
            f"practising it with friends, reading books on {topic}, and comparing notes about "
            f"tools, seasons and technique number {i}. Nothing in this paragraph concerns any "
            f"machinery or schedule, only the pleasant habits around {topic}."
        )
    return "\n\n".join(out)


def long_document(budget: int = MAX_TEXT_CHARS) -> str:
    text = "# Field notes\n\nAn introduction to these miscellaneous field notes.\n\n"
    text += filler(4 * budget // 300) + "\n\n## Reactor maintenance\n\n" + ANSWER + "\n"
    assert len(text) > 3 * budget
    return text


def segments(selected: str) -> list[str]:
    return selected.split(BLOCK_GAP)


def assert_in_order(text: str, selected: str) -> None:
    """Every shown segment is verbatim text of the document, in the document's order."""
    position = 0
    for segment in segments(selected):
        found = text.find(segment, position)
        assert found >= 0, segment[:80]
        position = found + len(segment)


# ---- selection --------------------------------------------------------------------------


def test_the_answer_at_the_end_of_a_long_document_is_returned() -> None:
    text = long_document()
    selected = select_passages(text, QUESTION, MAX_TEXT_CHARS)
    assert ANSWER in selected
    assert ANSWER not in head(text, MAX_TEXT_CHARS)  # the head alone would miss it
    assert selected.startswith("# Field notes")  # the opening chunk is kept for context
    assert len(selected) <= MAX_TEXT_CHARS


def test_selected_chunks_keep_document_order() -> None:
    text = long_document()
    # Terms spread over the document: several separate picks, best first in rank order.
    selected = select_passages(text, "Paragraph 95 zebrafish reactor Paragraph 40", 3000)
    assert ANSWER in selected
    assert_in_order(text, selected)
    assert selected.index("Paragraph 40 ") < selected.index("Paragraph 95 ")
    assert selected.index("Paragraph 95 ") < selected.index(ANSWER)


def test_an_elision_marker_separates_non_adjacent_chunks_only() -> None:
    text = long_document()
    selected = select_passages(text, QUESTION, MAX_TEXT_CHARS)
    parts = segments(selected)
    assert len(parts) >= 2
    assert selected.count(ELISION) == len(parts) - 1
    ends = []
    for part in parts:
        start = text.find(part)
        assert start >= 0
        ends.append((start, start + len(part)))
    for (_, end), (next_start, _) in pairwise(ends):
        assert text[end:next_start].strip(), "a marker stands for omitted text"


def test_adjacent_chunks_are_joined_as_in_the_text() -> None:
    text = "\n\n".join(f"Section {i}: " + "lorem ipsum dolor " * 40 for i in range(30))
    text += "\n\nThe quokka answer sits here.\n\nThe quokka detail follows right after."
    selected = select_passages(text, "quokka", 2500, include_head=False)
    assert "The quokka answer sits here.\n\nThe quokka detail follows right after." in selected
    assert ELISION not in selected


def test_budget_is_respected() -> None:
    text = long_document()
    for budget in (200, 900, 1500, 4000, MAX_TEXT_CHARS):
        for query in (QUESTION, "paragraph weekends", "", "zzz unknown"):
            assert len(select_passages(text, query, budget)) <= budget, (budget, query)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["alpha", "beta", "gamma.delta", "x", "end.", "Why?", "\n", "\n\n", " "]),
        max_size=400,
    ),
    st.sampled_from(["alpha", "gamma", "delta beta", "the", ""]),
    st.integers(min_value=1, max_value=600),
)
def test_selection_is_bounded_and_verbatim(words: list[str], query: str, budget: int) -> None:
    text = " ".join(words)
    selected = select_passages(text, query, budget)
    assert len(selected) <= budget
    # Verbatim pieces in order; only a cut inside one over-long piece may end with "…".
    assert_in_order(text, selected if selected in text else selected.removesuffix("…"))


def test_a_short_text_is_returned_unchanged() -> None:
    text = "  # Title\n\nShort text.\n\n```\ncode   stays\n```\n"
    assert select_passages(text, "code", len(text)) == text
    assert select_passages(text, "code", 10_000) == text


def test_an_empty_or_stopword_only_query_falls_back_to_the_head() -> None:
    text = long_document()
    expected = head(text, MAX_TEXT_CHARS)
    assert text.startswith(expected.removesuffix("…"))
    assert len(expected) > MAX_TEXT_CHARS - 300
    for query in ("", "   ", "how is the", "What is it? Why are they?"):
        assert query_terms(query) == []
        assert select_passages(text, query, MAX_TEXT_CHARS) == expected
    # Words that match nothing fall back the same way.
    assert select_passages(text, "xylophone", MAX_TEXT_CHARS) == expected


# ---- chunks and scores ------------------------------------------------------------------


def test_chunks_are_sized_and_never_cut_a_word() -> None:
    text = long_document()
    chunks = split_chunks(text)
    assert chunks[0].text.startswith("# Field notes")
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
        assert len(chunk.text) <= 1000
        assert chunk.start == 0 or text[chunk.start - 1].isspace()
        assert chunk.end == len(text) or text[chunk.end].isspace()
    assert all(len(chunk.text) >= 450 for chunk in chunks[1:-1])
    # Nothing but whitespace between consecutive chunks: the chunks cover the text.
    for previous, following in pairwise(chunks):
        assert not text[previous.end : following.start].strip()


def test_a_heading_starts_a_chunk_and_a_code_block_stays_whole() -> None:
    code = "```\n" + "\n\n".join(f"result_{i} = compute({i})" for i in range(40)) + "\n```"
    text = filler(3) + "\n\n## Usage\n\n" + code + "\n\n" + filler(3)
    chunks = split_chunks(text)
    assert any(chunk.text.startswith("## Usage") for chunk in chunks)
    holding = [chunk for chunk in chunks if "result_0 =" in chunk.text]
    assert len(holding) == 1 and code in holding[0].text


def test_identifiers_count_whole_and_by_their_dotted_parts() -> None:
    assert query_terms("asyncio.wait_for timeouts") == [
        "asyncio.wait_for",
        "asyncio",
        "wait_for",
        "timeout",
    ]
    scores = score_chunks(
        [
            "Use asyncio.wait_for() to bound a coroutine.",
            "Plain prose about waiting.",
            "The wait_for helper.",
        ],
        "wait_for",
    )
    assert scores[0] > 0 and scores[2] > 0 and scores[1] == 0


def test_bm25_prefers_rare_terms_and_shorter_matches() -> None:
    chunks = [
        "task task task common words here",
        "task common words " + "padding " * 50,
        "cancellation of a task",
        "common words only",
    ]
    scores = score_chunks(chunks, "task cancellation")
    assert scores.index(max(scores)) == 2  # the rare term wins
    assert scores[0] > scores[1]  # same term, shorter chunk, more occurrences
    assert scores[3] == 0


# ---- fetch_url ----------------------------------------------------------------------------


def _documents(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(long_document(), encoding="utf-8")
    (folder / "short.md").write_text("# Short\n\nA short note about the zebrafish.\n")
    return folder


def _fetch_tools(tmp_path: Path, registry: SourceRegistry, **kw: str | None) -> dict:
    settings = local_settings(tmp_path / "data", documents=_documents(tmp_path))
    return {tool.name: tool for tool in build_research_tools(settings, registry, **kw)}


async def test_fetch_url_shows_the_passage_matching_the_focus(tmp_path: Path) -> None:
    registry = SourceRegistry()
    tools = _fetch_tools(tmp_path, registry, unit_id="unit-1", focus=QUESTION)
    result = await tools["fetch_url"].ainvoke({"url": "notes.md"})
    header, _, shown = result.partition("\n\n")
    assert header == "Fetched: notes.md\nTitle: Field notes"
    assert ANSWER in shown
    assert ELISION in shown
    assert len(shown) <= MAX_TEXT_CHARS
    # The registry keeps exactly what the model was shown (whitespace collapsed as it stores).
    assert registry.passages("notes.md") == [" ".join(shown.split())]


async def test_fetch_url_ranks_by_the_latest_search_without_a_focus(tmp_path: Path) -> None:
    registry = SourceRegistry()
    tools = _fetch_tools(tmp_path, registry)
    await tools["search_web"].ainvoke({"query": "paragraph weekends"})
    await tools["search_web"].ainvoke({"query": "zebrafish reactor recalibrated"})
    result = await tools["fetch_url"].ainvoke({"url": "notes.md"})
    shown = result.partition("\n\n")[2]
    assert ANSWER in shown
    assert " ".join(shown.split()) in registry.passages("notes.md")


async def test_fetch_url_without_focus_or_search_shows_the_head(tmp_path: Path) -> None:
    registry = SourceRegistry()
    tools = _fetch_tools(tmp_path, registry)
    result = await tools["fetch_url"].ainvoke({"url": "notes.md"})
    shown = result.partition("\n\n")[2]
    settings = local_settings(tmp_path / "data", documents=tmp_path / "docs")
    index = LocalIndex(settings.index_db_path, settings.resolved_documents_path)
    document = index.document("notes.md")
    assert document is not None and len(document.text) > 3 * MAX_TEXT_CHARS
    assert shown == document.text[:MAX_TEXT_CHARS]  # as before reranking
    assert ANSWER not in shown and ELISION not in shown
    short = await tools["fetch_url"].ainvoke({"url": "short.md"})
    assert short == "Fetched: short.md\nTitle: Short\n\nA short note about the zebrafish."


async def test_fetch_url_reranks_a_long_web_page(tmp_path: Path) -> None:
    paragraphs = "".join(
        f"<p>{re.sub(r'[<>]', '', p)}</p>" for p in long_document().split("\n\n")[1:]
    )
    page = f"<html><head><title>Notes</title></head><body><article>{paragraphs}</article></body>"
    registry = SourceRegistry()
    with WebServer(pages={"notes.html": page + "</html>"}) as web:
        settings = local_settings(tmp_path, FETCH_ALLOWED_HOSTS=web.allowed_host)
        tools = {t.name: t for t in build_research_tools(settings, registry, focus=QUESTION)}
        url = web.url("/notes.html")
        result = await tools["fetch_url"].ainvoke({"url": url})
    shown = result.partition("\n\n")[2]
    assert ANSWER in shown and len(shown) <= MAX_TEXT_CHARS
    assert registry.passages(url) == [" ".join(shown.split())]


def test_a_long_search_passage_keeps_one_matching_stretch_on_one_line() -> None:
    from engine.tools.preprocess import MAX_PASSAGE_CHARS, best_passage

    text = filler(12) + "\n\n" + ANSWER + " " + filler(2)
    assert len(text) > 3 * MAX_PASSAGE_CHARS
    passage = best_passage(text, QUESTION)
    assert ANSWER in passage
    # The best sentence and all that follows it; the room left goes to what precedes it.
    assert passage.endswith(" ".join(text.split())[-60:])
    assert len(passage) > MAX_PASSAGE_CHARS - 320
    assert len(passage) <= MAX_PASSAGE_CHARS
    assert "\n" not in passage and ELISION not in passage
    assert passage in " ".join(text.split())
