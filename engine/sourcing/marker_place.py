"""Move a citation a model wrote just before the answer's last words to the sentence's end.

Small models often write the marker where the answer starts rather than where it ends:
"The default start method is [1] fork." reads as if `[1]` were the answer. A marker followed
by a few words and the sentence's full stop moves after those words; a marker inside a
longer sentence, or one followed by another marker, stays where its writer put it.
"""

from __future__ import annotations

import re

from engine.text.markers import MARKER_NUMBERS

# A word that introduces the answer ("is", "returns", a colon), a marker, then at most three
# words (dots inside a name allowed) and the sentence's stop. A marker after anything else
# ("Queues [1] and locks [2] differ.") cites what precedes it and stays.
_WORD = r"(?:[^\s\[\].!?]|\.(?=\w))+"
_EARLY_MARKER = re.compile(
    r"(?P<lead>\b(?:is|are|was|were|be|named|called|returns?|raises?|uses?|to)\b|:)"
    rf"[ \t]*(?P<marker>\[{MARKER_NUMBERS}\])[ \t]+"
    rf"(?P<tail>{_WORD}(?:[ \t]+{_WORD}){{0,2}})(?P<stop>[.!?])(?=\s|$)",
    re.IGNORECASE,
)


def markers_at_sentence_end(answer: str) -> str:
    """`answer` with each marker written just before a sentence's last words moved after them."""
    return _EARLY_MARKER.sub(lambda m: f"{m['lead']} {m['tail']} {m['marker']}{m['stop']}", answer)
