"""Cited sentences and evidence records from a researcher's final message."""

from __future__ import annotations

import pytest

from engine.citations.extract import (
    evidence_from_message,
    extract_cited_sentences,
    split_sentences,
)
from engine.citations.registry import SourceRegistry
from engine.citations.uncertainty import flag_uncertainty

MESSAGE = """## Findings

SQLite in WAL mode lets readers proceed while a writer appends [1]. Checkpoints copy pages
back into the database file [1][2]. This sentence cites nothing.

- Task groups cancel their siblings when one task fails [3].
- The GIL is released during blocking I/O [4, 1]. [2]
- Cited twice [1, 1] and to a missing entry [9].
- Only an unknown entry [9].

```python
values[1] = 2  # code is not prose [1]
```

Dr. Hipp designed it, e.g. for embedded use [2].

### Sources
[1] WAL: https://sqlite.org/wal.html
[2] File format: https://sqlite.org/fileformat.html
[3] Coroutines and Tasks: asyncio-task.html
[4] guide.pdf, p.15
"""


def test_extract_cited_sentences() -> None:
    found = [(c.sentence, c.sources) for c in extract_cited_sentences(MESSAGE)]
    assert found == [
        (
            "SQLite in WAL mode lets readers proceed while a writer appends.",
            ["https://sqlite.org/wal.html"],
        ),
        (
            "Checkpoints copy pages back into the database file.",
            ["https://sqlite.org/wal.html", "https://sqlite.org/fileformat.html"],
        ),
        ("Task groups cancel their siblings when one task fails.", ["asyncio-task.html"]),
        (
            "The GIL is released during blocking I/O.",
            [
                "guide.pdf, p.15",
                "https://sqlite.org/wal.html",
                "https://sqlite.org/fileformat.html",
            ],
        ),
        ("Cited twice and to a missing entry.", ["https://sqlite.org/wal.html"]),
        ("Dr. Hipp designed it, e.g. for embedded use.", ["https://sqlite.org/fileformat.html"]),
    ]


def test_message_without_sources_list_yields_nothing() -> None:
    assert extract_cited_sentences("A claim [1]. Another [2].") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("Claim one [1]. Claim two.", ["Claim one [1].", "Claim two."]),
        ("Claim one. [1] Claim two.", ["Claim one. [1]", "Claim two."]),
        ("Pi is 3.14 today. Next.", ["Pi is 3.14 today.", "Next."]),
        ("See Fig. 3 and i.e. this. Done.", ["See Fig. 3 and i.e. this.", "Done."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("No terminator", ["No terminator"]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


UNCERTAINTY = [
    ("The results may change with load.", "hedged"),
    ("It might be faster.", "hedged"),
    ("This could possibly help.", "hedged"),
    ("The release shipped in May 2024.", None),
    ("The cause is unclear.", "unclear"),
    ("Whether it scales remains not yet known.", "unclear"),
    ("The vendor reportedly fixed it.", "unconfirmed report"),
    ("According to some benchmarks it is faster.", "unconfirmed report"),
    ("Studies show conflicting results.", "conflicting evidence"),
    ("The figure is disputed by maintainers.", "disputed"),
    ("However, later tests contradict this.", "contradiction"),
    ("Later tests may contradict this.", "contradiction"),
    ("SQLite stores the database in a single file.", None),
]


@pytest.mark.parametrize(("sentence", "label"), UNCERTAINTY)
def test_flag_uncertainty(sentence: str, label: str | None) -> None:
    assert flag_uncertainty(sentence) == label


def test_evidence_from_message_resolves_through_the_registry_and_caps() -> None:
    registry = SourceRegistry.from_sources(["https://sqlite.org/wal.html"], ["Asyncio-Task.html"])
    records = evidence_from_message(
        MESSAGE, "unit-2", registry=registry, max_claims=3, max_sources_per_claim=1
    )
    assert [(r.id, r.source_urls) for r in records] == [
        ("unit-2-e1", ["https://sqlite.org/wal.html"]),
        ("unit-2-e2", ["https://sqlite.org/wal.html"]),
        ("unit-2-e3", ["Asyncio-Task.html"]),
    ]
    assert all(r.confidence == 0.5 and r.research_unit_id == "unit-2" for r in records)


def test_evidence_flags_uncertain_claims_and_skips_unknown_sources() -> None:
    message = (
        "The fix may land soon [1]. Nobody knows [2].\n\n## Sources\n"
        "[1] A: https://a.org/x\n[2] B: https://b.org/y\n"
    )
    registry = SourceRegistry.from_sources(["https://a.org/x"])
    records = evidence_from_message(message, "u1", registry=registry)
    assert [(r.claim, r.contradiction_or_uncertainty) for r in records] == [
        ("The fix may land soon.", "hedged")
    ]
    unfiltered = evidence_from_message(message, "u1")
    assert [r.source_urls for r in unfiltered] == [["https://a.org/x"], ["https://b.org/y"]]
