"""A document whose file name holds markup or control characters is cited like any other."""

from __future__ import annotations

import json
import re

import pytest

from engine.citations.keys import parse_document_key
from engine.tools.document_names import citation_key
from tests.unit.hardening.conftest import DOCUMENTS, Sandbox

HOSTILE_NAMES = {
    "tasks.md": "<b>tasks<b> [draft](x).md",
    "threads.md": "thr\x1b[31meads\x07.md",
    "loops.md": "loops_*notes*|x.md",
}


@pytest.mark.parametrize("name", [*HOSTILE_NAMES.values(), "guide (v2) #3.pdf", "a\u202eb.txt"])
def test_a_citation_key_is_a_plain_document_name(name: str):
    key = citation_key(name)
    parsed = parse_document_key(key)
    assert parsed is not None and parsed.file_name == key.lower()
    assert citation_key(name) == key  # stable across runs: the index and citations agree


def test_plain_names_keep_their_key():
    for name in ("asyncio-task.html", "sub/notes.md", "guide.pdf", "my_notes.v2.txt"):
        assert citation_key(name) == name


def test_distinct_names_never_share_a_key():
    assert citation_key("a(1).md") != citation_key("a[1].md")


def test_documents_with_hostile_names_keep_their_citations(sandbox: Sandbox):
    for plain, hostile in HOSTILE_NAMES.items():
        (sandbox.documents / plain).rename(sandbox.documents / hostile)
    code, out, err = sandbox.run("run", "How are tasks cancelled?", "--yes", "--mode", "quick")
    assert code == 0, err
    audit_file = next((sandbox.data_dir / "reports").glob("*.audit.json"))
    audit = json.loads(audit_file.read_text(encoding="utf-8"))
    assert audit["removed_citations"] == []
    assert len(audit["kept_citations"]) == len(DOCUMENTS)
    body = out.split("# How are tasks cancelled?", 1)[1].split("## Sources", 1)[0]
    sentences = [line for line in body.splitlines() if line.strip()]
    assert sentences and all(re.search(r"\[\d+\]", line) for line in sentences)


_TERMINAL_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def test_index_and_doctor_print_hostile_names_escaped(sandbox: Sandbox):
    outside = sandbox.root / "elsewhere.md"
    outside.write_text("# Elsewhere\n\nWords.\n")
    hostile = ["a\x1b]0;pwned\x07b.md", "evil\u202etxt.md", "c\x9b2Jd.md", "big\x1b[2J.md"]
    for name in hostile[:3]:
        (sandbox.documents / name).symlink_to(outside)  # each skipped: it links outside
    (sandbox.documents / hostile[3]).write_text("# Big\n\n" + "words " * 400)
    code, out, err = sandbox.run("index", str(sandbox.documents))
    assert code == 0
    code, doctor_out, doctor_err = sandbox.run("doctor", "--no-probe")
    for printed in (out, err, doctor_out, doctor_err):
        assert not _TERMINAL_CONTROL.search(printed), printed
    for shown in ("a\\x1b]0;pwned\\x07b.md", "evil\\u202etxt.md", "c\\x9b2Jd.md"):
        assert f"skipped {shown}: it links outside" in err
        assert f"skipped {shown}: it links outside" in doctor_out
