"""The eval sets are honest: each fact is on the page it names.

For every question, each fact pattern must occur (case-insensitive) in the text the index
extracts from each source page, and must not occur in the question itself, so a score on a
set measures whether an answer carries the fact rather than whether it echoes the question.

The shipped set over docs/samples (Python documentation, HTML), four more over Markdown pages
shipped beside them (Node.js API pages, Fastify reference pages, Pino documentation pages,
undici API pages), and four over HTML pages (the SQLite documentation, the Apache HTTP Server
manual, and the PostgreSQL and Git manuals, each of the last two split into a development and a
hold-out file).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from engine.tools.documents import parse_file
from engine.tools.extract import extract_html

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "eval"
SAMPLES = ROOT / "docs" / "samples"
EVAL_SET = FIXTURES / "docs_samples.jsonl"

KINDS = {"number", "version", "name", "default", "which-function", "what-happens"}


@dataclass(frozen=True)
class EvalSet:
    name: str
    path: Path
    pages: Path
    min_questions: int
    min_pages: int
    kinds: frozenset[str]
    # Even coverage: no kind below this share of an equal share (0 for a small hold-out).
    min_kind_share: float


SETS = {
    "docs_samples": EvalSet("docs_samples", EVAL_SET, SAMPLES, 44, 20, frozenset(KINDS), 2 / 3),
    "nodejs_holdout": EvalSet(
        "nodejs_holdout",
        FIXTURES / "nodejs_holdout.jsonl",
        FIXTURES / "nodejs_pages",
        15,
        6,
        frozenset(KINDS - {"version"}),
        0.0,
    ),
    "fastify_holdout": EvalSet(
        "fastify_holdout",
        FIXTURES / "fastify_holdout.jsonl",
        FIXTURES / "fastify_pages",
        40,
        8,
        frozenset(KINDS),
        2 / 3,
    ),
    "pino_holdout": EvalSet(
        "pino_holdout",
        FIXTURES / "pino_holdout.jsonl",
        FIXTURES / "pino_pages",
        30,
        9,
        frozenset(KINDS),
        2 / 3,
    ),
    "undici_holdout": EvalSet(
        "undici_holdout",
        FIXTURES / "undici_holdout.jsonl",
        FIXTURES / "undici_pages",
        30,
        10,
        frozenset(KINDS),
        2 / 3,
    ),
    "sqlite_holdout": EvalSet(
        "sqlite_holdout",
        FIXTURES / "sqlite_holdout.jsonl",
        FIXTURES / "sqlite_pages",
        40,
        12,
        frozenset(KINDS),
        2 / 3,
    ),
    "httpd_holdout": EvalSet(
        "httpd_holdout",
        FIXTURES / "httpd_holdout.jsonl",
        FIXTURES / "httpd_pages",
        24,
        14,
        frozenset(KINDS),
        2 / 3,
    ),
    # One set over PostgreSQL pages in two files: the dev half is read while tuning, the
    # holdout half never is.
    "postgres_dev": EvalSet(
        "postgres_dev",
        FIXTURES / "postgres_dev.jsonl",
        FIXTURES / "postgres_pages",
        18,
        10,
        frozenset(KINDS),
        2 / 3,
    ),
    "postgres_holdout": EvalSet(
        "postgres_holdout",
        FIXTURES / "postgres_holdout.jsonl",
        FIXTURES / "postgres_pages",
        18,
        10,
        frozenset(KINDS),
        2 / 3,
    ),
    # The same split over pages of the Git manual.
    "git_dev": EvalSet(
        "git_dev",
        FIXTURES / "git_dev.jsonl",
        FIXTURES / "git_pages",
        18,
        10,
        frozenset(KINDS),
        2 / 3,
    ),
    "git_holdout": EvalSet(
        "git_holdout",
        FIXTURES / "git_holdout.jsonl",
        FIXTURES / "git_pages",
        18,
        10,
        frozenset(KINDS),
        2 / 3,
    ),
}

# Each split set: (development file, hold-out file).
SPLIT_SETS = [("postgres_dev", "postgres_holdout"), ("git_dev", "git_holdout")]


def load_rows(path: Path = EVAL_SET) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            row["_line"] = number
            rows.append(row)
    return rows


@cache
def page_text(name: str, pages: Path = SAMPLES) -> str:
    """The page's text as the local index sees it (same extraction as indexing)."""
    path = pages / name
    if path.suffix.lower() in (".html", ".htm"):
        return extract_html(path.read_text(encoding="utf-8")).text
    return "\n\n".join(chunk.text for chunk in parse_file(path, name).chunks)


def row_problems(row: dict, pages: Path = SAMPLES) -> list[str]:
    """Everything wrong with one line of a set; empty when the line is sound."""
    problems: list[str] = []
    if set(row) - {"_line"} != {"id", "question", "expected", "kind"}:
        problems.append(f"fields are {sorted(set(row) - {'_line'})}")
        return problems
    question = row["question"]
    if not isinstance(question, str) or not question.strip().endswith("?"):
        problems.append("question is not a question")
    if re.search(r"\.(html?|md)\b", question):
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
        if not (pages / source).is_file():
            problems.append(f"source {source} is not in {pages.name}")
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
            if not pattern.search(page_text(source, pages)):
                problems.append(f"fact {fact!r} is not on {source}")
    return problems


CASES = [(eval_set, row) for eval_set in SETS.values() for row in load_rows(eval_set.path)]


@pytest.mark.parametrize(
    ("eval_set", "row"), CASES, ids=[f"{s.name}-{row['id']}" for s, row in CASES]
)
def test_each_fact_is_on_its_page_and_not_in_the_question(eval_set, row):
    assert row_problems(row, eval_set.pages) == []


@pytest.mark.parametrize("eval_set", SETS.values(), ids=list(SETS))
def test_each_set_is_large_varied_and_well_formed(eval_set):
    rows = load_rows(eval_set.path)
    ids = [row["id"] for row in rows]
    assert len(rows) >= eval_set.min_questions
    assert len(set(ids)) == len(ids), "duplicate ids"
    assert len({row["question"].casefold() for row in rows}) == len(rows), "duplicate questions"
    pages = {source for row in rows for source in row["expected"]["sources"]}
    assert len(pages) >= eval_set.min_pages
    kinds = Counter(row["kind"] for row in rows)
    assert set(kinds) == eval_set.kinds
    assert min(kinds.values()) >= int(eval_set.min_kind_share * len(rows) / len(eval_set.kinds))


def test_the_sets_do_not_share_ids():
    ids = [row["id"] for _, row in CASES]
    assert len(set(ids)) == len(ids)


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
    markdown_wrong_page = {
        "id": "x4",
        "question": "Which logging library does the framework use?",
        "expected": {"facts": [r"\bpino\b"], "sources": ["LTS.md"]},
        "kind": "name",
    }
    assert row_problems(wrong_page) == [r"fact '\\b128\\b' is not on json.html"]
    assert row_problems(echoed) == ["fact 'JSONDecodeError' matches the question itself"]
    assert row_problems(missing_page) == ["source tomllib.html is not in samples"]
    assert row_problems(markdown_wrong_page, SETS["fastify_holdout"].pages) == [
        r"fact '\\bpino\\b' is not on LTS.md"
    ]


@pytest.mark.parametrize("name", ["sqlite_holdout", "httpd_holdout"])
def test_each_half_of_a_paired_set_has_every_kind(name):
    # The odd half is read while tuning, the even half never: each must cover every kind.
    rows = load_rows(SETS[name].path)
    for parity in (0, 1):
        assert {row["kind"] for row in rows if int(row["id"][1:]) % 2 == parity} == KINDS


@pytest.mark.parametrize(("dev_name", "holdout_name"), SPLIT_SETS, ids=[d for d, _ in SPLIT_SETS])
def test_the_halves_of_a_split_set_are_alike_and_disjoint(dev_name, holdout_name):
    # The holdout half stands in for the dev half on unseen questions: same size, same kinds,
    # same pages folder, and no question asked twice.
    dev = load_rows(SETS[dev_name].path)
    holdout = load_rows(SETS[holdout_name].path)
    assert len(dev) == len(holdout)
    assert Counter(row["kind"] for row in dev) == Counter(row["kind"] for row in holdout)
    assert SETS[dev_name].pages == SETS[holdout_name].pages
    asked = {row["question"].casefold() for row in dev}
    assert not asked & {row["question"].casefold() for row in holdout}
