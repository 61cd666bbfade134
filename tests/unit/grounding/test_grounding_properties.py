"""Properties of strict grounding on reports assembled from the labelled claims."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.citations.registry import SourceRegistry
from engine.grounding.assess import shares_content
from engine.grounding.claims import sentences
from engine.grounding.enforce import UNSUPPORTED_MARK, ground_report
from engine.grounding.passages import every_passage
from engine.grounding.score import score_claim

LABELLED = Path(__file__).resolve().parents[2] / "fixtures" / "grounding" / "labelled_claims.jsonl"
PAIRS = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]


@st.composite
def reports(draw: st.DrawFn) -> tuple[str, SourceRegistry, dict[int, str]]:
    chosen = draw(st.lists(st.sampled_from(PAIRS), min_size=1, max_size=8))
    registry = SourceRegistry()
    sources: dict[int, str] = {}
    lines = ["# Report", ""]
    for number, pair in enumerate(chosen, start=1):
        key = f"doc{number}.html"
        registry.add_document(key, pair["document"], pair["passage"])
        sources[number] = key
        sentence = f"{pair['claim'].rstrip('.')} [{number}]."
        layout = draw(st.sampled_from(["paragraph", "bullet", "same line"]))
        if layout == "bullet":
            lines.append(f"- {sentence}")
        elif layout == "same line" and lines[-1] and not lines[-1].startswith("#"):
            lines[-1] += f" {sentence}"
        else:
            lines += ["", sentence]
    entries = [f"[{n}] Title {n} — {key}" for n, key in sources.items()]
    report = "\n".join([*lines, "", "## Sources", *entries]) + "\n"
    return report, registry, sources


@settings(max_examples=60, deadline=None)
@given(reports())
def test_no_kept_sentence_is_unsupported_by_the_sources_it_cites(
    case: tuple[str, SourceRegistry, dict[int, str]],
) -> None:
    report, registry, sources = case
    grounded = ground_report(
        report, original=report, sources=sources, registry=registry, mode="strict"
    )
    marked = {claim.text for claim in grounded.claims if claim.action == "marked"}
    for sentence in sentences(grounded.report, set(sources)):
        text = sentence.text.replace(UNSUPPORTED_MARK.strip(), "").strip()
        if not sentence.numbers or text in marked:
            continue
        passages = [p for n in sentence.numbers for p in registry.passages(sources[n])]
        assert score_claim(text, passages).status != "unsupported", text
    # Nothing supported is lost, nothing is mangled: every kept claim is still there whole, an
    # unsupported one is marked, and only what no retrieved text shares content with is gone.
    retrieved = every_passage(registry)
    for claim in grounded.claims:
        if claim.action == "kept":
            assert claim.text in grounded.report and claim.status != "unsupported"
        elif claim.action == "marked":
            assert f"{claim.text}{UNSUPPORTED_MARK}" in grounded.report
        else:
            assert claim.text not in grounded.report
            assert not shares_content(claim.text, retrieved), claim.text
    assert grounded.report.rstrip().endswith(f"— {sources[max(sources)]}")
