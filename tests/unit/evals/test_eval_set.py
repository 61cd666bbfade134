"""The shipped eval set over docs/samples is honest: each fact is on the page it names.

For every question, each fact pattern must occur (case-insensitive) in the text the index
extracts from each source page, and must not occur in the question itself, so a score on the
set measures whether an answer carries the fact rather than whether it echoes the question.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from engine.tools.extract import extract_html

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "docs" / "samples"
EVAL_SET = ROOT / "tests" / "fixtures" / "eval" / "docs_samples.jsonl"

KINDS = {"number", "version", "name", "default", "which-function", "what-happens"}
MIN_QUESTIONS = 44
MIN_PAGES = 20


def load_rows(path: Path = EVAL_SET) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            row["_line"] = number
            rows.append(row)
    return rows


@cache
def page_text(name: str) -> str:
    """The page's text as the local index sees it (same extraction as indexing)."""
    return extract_html((SAMPLES / name).read_text(encoding="utf-8")).text


def row_problems(row: dict) -> list[str]:
    """Everything wrong with one line of the set; empty when the line is sound."""
    problems: list[str] = []
    if set(row) - {"_line"} != {"id", "question", "expected", "kind"}:
        problems.append(f"fields are {sorted(set(row) - {'_line'})}")
        return problems
    question = row["question"]
    if not isinstance(question, str) or not question.strip().endswith("?"):
        problems.append("question is not a question")
    if ".html" in question:
        problems.append("question names a page")
    if row["kind"] not in KINDS:
        problems.append(f"unknown kind {row['kind']!r}")
    facts = row["expected"].get("facts") or []
    sources = row["expected"].get("sources") or []
    if not facts:
        problems.append("no facts")
    if not 1 <= len(sources) <= 2:
        problems.append(f"{len(sources)} sources (one page, two when stated on both)")
    for source in sources:
        if not (SAMPLES / source).is_file():
            problems.append(f"source {source} is not in docs/samples")
    if problems:
        return problems
    for fact in facts:
        try:
            pattern = re.compile(fact, re.IGNORECASE)
        except re.error as error:
            problems.append(f"fact {fact!r} does not compile: {error}")
            continue
        if pattern.search(question):
            problems.append(f"fact {fact!r} matches the question itself")
        for source in sources:
            if not pattern.search(page_text(source)):
                problems.append(f"fact {fact!r} is not on {source}")
    return problems


ROWS = load_rows()


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_each_fact_is_on_its_page_and_not_in_the_question(row):
    assert row_problems(row) == []


def test_the_set_is_large_varied_and_well_formed():
    ids = [row["id"] for row in ROWS]
    assert len(ROWS) >= MIN_QUESTIONS
    assert len(set(ids)) == len(ids), "duplicate ids"
    assert len({row["question"].casefold() for row in ROWS}) == len(ROWS), "duplicate questions"
    pages = {source for row in ROWS for source in row["expected"]["sources"]}
    assert len(pages) >= MIN_PAGES
    kinds = Counter(row["kind"] for row in ROWS)
    assert set(kinds) == KINDS
    # Even coverage: no kind has fewer than two thirds of an equal share.
    assert min(kinds.values()) >= (2 * len(ROWS)) // (3 * len(KINDS))


def test_the_check_catches_a_fact_missing_from_its_page_or_echoed_by_the_question():
    wrong_page = {
        "id": "x1",
        "question": "What is the default maxsize of functools.lru_cache?",
        "expected": {"facts": [r"\b128\b"], "sources": ["json.html"]},
        "kind": "default",
    }
    echoed = {
        "id": "x2",
        "question": "Which exception does json.loads raise, JSONDecodeError?",
        "expected": {"facts": ["JSONDecodeError"], "sources": ["json.html"]},
        "kind": "name",
    }
    missing_page = {
        "id": "x3",
        "question": "Which module parses TOML?",
        "expected": {"facts": ["tomllib"], "sources": ["tomllib.html"]},
        "kind": "name",
    }
    assert row_problems(wrong_page) == [r"fact '\\b128\\b' is not on json.html"]
    assert row_problems(echoed) == ["fact 'JSONDecodeError' matches the question itself"]
    assert row_problems(missing_page) == ["source tomllib.html is not in docs/samples"]
