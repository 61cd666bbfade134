"""The labelled claim–passage set that calibrates the lexical support scorer is well formed.

Every pair must parse, carry a valid label/kind, quote its passage exactly as the engine's own
extraction (LocalIndex) sees the document, and the unsupported kinds must really differ from
their passage the way their kind says (a changed number, a flipped negation).
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from engine.tools.local_index import LocalIndex

ROOT = Path(__file__).resolve().parents[3]
LABELLED = ROOT / "tests" / "fixtures" / "grounding" / "labelled_claims.jsonl"
SAMPLES = ROOT / "docs" / "samples"

FIELDS = {"id", "document", "passage", "claim", "label", "kind"}
KINDS = {
    "supported": {"verbatim", "paraphrase", "partial"},
    "unsupported": {"number_swap", "version_swap", "entity_swap", "negation", "wrong_passage"},
}
MIN_PAIRS = 220
MIN_PARAPHRASES = 60
MIN_PER_UNSUPPORTED_KIND = 25
MIN_DOCUMENTS = 15

_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nothing",
        "nobody",
        "neither",
        "nor",
        "cannot",
        "without",
        "isn't",
        "aren't",
        "wasn't",
        "doesn't",
        "don't",
        "didn't",
        "can't",
        "won't",
        "needn't",
        "shouldn't",
        "mustn't",
        "hasn't",
        "haven't",
    }
)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


def _negations(text: str) -> set[str]:
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    return {word for word in words if word in _NEGATIONS}


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return [line for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def pairs(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def extracted(pairs: list[dict], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each cited document's text as the engine extracts it (one index for the module)."""
    base = tmp_path_factory.mktemp("labelled-index")
    folder = base / "samples"
    folder.mkdir()
    names = sorted({pair["document"] for pair in pairs})
    for name in names:
        shutil.copy2(SAMPLES / name, folder / name)
    index = LocalIndex(base / "index.sqlite", folder, workers=1)
    index.refresh()
    texts = {}
    for name in names:
        document = index.document(name)
        assert document is not None, f"{name} was not indexed"
        texts[name] = _squash(document.text)
    return texts


def test_every_line_is_a_json_object_with_exactly_the_documented_fields(lines):
    assert lines
    for number, line in enumerate(lines, start=1):
        pair = json.loads(line)
        assert isinstance(pair, dict), f"line {number}"
        assert set(pair) == FIELDS, f"line {number}: {sorted(pair)}"
        assert all(isinstance(pair[field], str) and pair[field] for field in FIELDS), number


def test_ids_are_unique(pairs):
    ids = [pair["id"] for pair in pairs]
    duplicated = [key for key, count in Counter(ids).items() if count > 1]
    assert not duplicated
    assert all(re.fullmatch(r"p\d{3,}", key) for key in ids)


def test_label_and_kind_go_together(pairs):
    for pair in pairs:
        assert pair["label"] in KINDS, pair["id"]
        assert pair["kind"] in KINDS[pair["label"]], pair["id"]


def test_the_counts_meet_the_targets(pairs):
    kinds = Counter(pair["kind"] for pair in pairs)
    labels = Counter(pair["label"] for pair in pairs)
    assert len(pairs) >= MIN_PAIRS
    assert 0.4 <= labels["supported"] / len(pairs) <= 0.6, labels
    assert kinds["paraphrase"] >= MIN_PARAPHRASES
    for kind in KINDS["unsupported"]:
        assert kinds[kind] >= MIN_PER_UNSUPPORTED_KIND, (kind, kinds[kind])
    assert len({pair["document"] for pair in pairs}) >= MIN_DOCUMENTS


def test_claims_read_like_single_report_sentences(pairs):
    for pair in pairs:
        claim = pair["claim"]
        assert "\n" not in claim, pair["id"]
        assert claim.endswith("."), pair["id"]
        assert not re.search(r"\[\d+(?:[,–-]\s*\d+)*\]", claim), pair["id"]
    # Only a verbatim claim may repeat its passage word for word.
    for pair in pairs:
        if pair["kind"] != "verbatim":
            assert _squash(pair["claim"]) != _squash(pair["passage"]), pair["id"]


def test_passages_are_short_quotes(pairs):
    for pair in pairs:
        assert 100 <= len(pair["passage"]) <= 700, (pair["id"], len(pair["passage"]))


def test_every_passage_is_quoted_from_its_documents_extracted_text(pairs, extracted):
    missing = [
        pair["id"] for pair in pairs if _squash(pair["passage"]) not in extracted[pair["document"]]
    ]
    assert not missing


@pytest.mark.parametrize("kind", ["number_swap", "version_swap"])
def test_a_swapped_number_is_absent_from_the_passage(pairs, kind):
    swapped = [pair for pair in pairs if pair["kind"] == kind]
    assert swapped
    for pair in swapped:
        assert _numbers(pair["claim"]) - _numbers(pair["passage"]), pair["id"]


def test_a_negation_flips_a_negation_word(pairs):
    negated = [pair for pair in pairs if pair["kind"] == "negation"]
    assert negated
    for pair in negated:
        assert _negations(pair["claim"]) ^ _negations(pair["passage"]), pair["id"]


def test_a_wrong_passage_comes_from_a_document_the_claim_does_not_quote(pairs):
    """A wrong_passage claim is a true sentence of another document, never its passage."""
    for pair in pairs:
        if pair["kind"] == "wrong_passage":
            assert _squash(pair["claim"]).rstrip(".") not in _squash(pair["passage"]), pair["id"]
