"""Take out a quick answer's sentences that cite a source where the fact should be.

"The minimum Node.js version supported by undici 7.x is [1, 2, 3]." answers nothing; kept, it
would pass verification (its sources were retrieved) and read as an answer. Taken out before
any citation is checked, so a marker the support check drops cannot leave "The results are
from,, and." behind; the quick path then quotes what the sources say instead.
"""

from __future__ import annotations

from engine.grounding.marker_as_fact import lists_only_sources, marker_stands_for_fact
from engine.sourcing.source_numbers import body_of
from engine.sourcing.support import SENTENCE

_UNTOUCHED = ("|", "#")


def without_marker_facts(answer: str) -> tuple[str, bool]:
    """`answer` less such sentences, and whether one of them left out a fact (a sentence
    that only lists its sources, "The results are from [1], [2].", leaves out none). Code,
    tables, headings and the references section are left as they are."""
    body = body_of(answer)
    lines: list[str] = []
    changed = fact_left_out = False
    in_code = False
    for line in body.split("\n"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code or line.lstrip().startswith(("```", *_UNTOUCHED)):
            lines.append(line)
            continue
        pieces = [piece for piece in SENTENCE.findall(line) if piece]
        taken = [piece for piece in pieces if marker_stands_for_fact(piece)]
        if not taken:
            lines.append(line)
            continue
        changed = True
        fact_left_out = fact_left_out or not all(map(lists_only_sources, taken))
        text = "".join(piece for piece in pieces if piece not in taken).strip()
        if text:
            lines.append(text)
    if not changed:
        return answer, False
    return "\n".join(lines).lstrip("\n") + answer[len(body) :], fact_left_out
