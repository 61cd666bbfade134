"""Where a sentence ends in prose: after . ! or ? and the space that follows.

`SENTENCE_BREAK_RE` cuts at every such place. `PROSE_SENTENCE_BREAK_RE` cuts only where the
next sentence visibly starts (a capital, a code span, emphasis, a quote or a bracket), so that
`e.g. this` and `v. 3` stay whole.
"""

from __future__ import annotations

import re

SENTENCE_BREAK = r"(?<=[.!?])\s+"
SENTENCE_BREAK_RE = re.compile(SENTENCE_BREAK)
# What a sentence of prose or Markdown starts with.
_SENTENCE_START = r"[A-Z`*\"(]"
PROSE_SENTENCE_BREAK = rf"{SENTENCE_BREAK}(?={_SENTENCE_START})"
PROSE_SENTENCE_BREAK_RE = re.compile(PROSE_SENTENCE_BREAK)
# One list item's bullet at a line's start, not the dashes of an option it opens with
# ("- -a, --all: …" is the item "-a, --all: …").
LIST_BULLET_RE = re.compile(r"^[-*•]+\s+")
