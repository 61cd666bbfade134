"""Cross-references: the parts of a documentation sentence that send the reader elsewhere.

Manuals point from one page to another ("For more information, see Section 25.1.", "See
ANALYZE for more details.", "…the autovacuum daemon, which is described in Section 25.1.6.",
"(see git-config(1))"). Quoted as a finding, such a sentence states nothing about the subject,
and a report built from it tells its reader to look up a section of a manual they do not have.
The forms are the closed set of a manual's reader-directing phrasing: an imperative "see",
"refer to" or "consult" opening the sentence or a clause, and a clause saying where something
"is described". A sentence that only points is none; a pointing clause is cut from one that
also states something.
"""

from __future__ import annotations

import re

_DIRECTS = r"(?:see(?:\s+also)?|refer\s+to|consult)(?!\s+(?:how|if|that|whether|what|why)\b)"
_WHERE = r"(?:described|explained|covered|discussed|documented|detailed|listed|shown)"
# Where a manual says something is written about: another part of it ("in Section 25.1",
# "in Chapter 9", "in git-config(1)", "in PEP 475", "in the following subsections",
# "below"), not a manner ("listed in alphabetical order", "shown in bold").
_PART = (
    r"(?:section|chapter|table|appendix|page|subsection|part|documentation|manual|reference"
    r"|man\s+page|following|next|previous|preceding)s?"
)
_PLACE = (
    r"(?:(?:in\s+(?:more\s+)?detail\s+)?(?:below|above|elsewhere|later|earlier)"
    rf"|(?:in|under|at)\s+(?:more\s+detail\s+in\s+)?(?:the\s+)?(?:{_PART}\b"
    r"|[\w.-]+\(\d\w*\)))"
)
# The sentence is the pointer: "See X …", "For more information (about Y), see X."
_POINTER_SENTENCE = re.compile(
    r"^\s*(?:for\s+(?:more|further|additional)\s+(?:information|details)\b[^.;:,]{0,100}?,?\s*"
    rf"|(?:for|to\s+learn)\b[^.;:]{{0,120}}?,\s*)?{_DIRECTS}\b",
    re.IGNORECASE,
)
# "This setting is described in detail below.", "The syntax is explained in Section 8.3.":
# a short subject and where it is written about, nothing about it.
_WHERE_SENTENCE = re.compile(
    rf"^\s*(?:\S+\s+){{1,5}}(?:is|are)\s+(?:\w+\s+)?{_WHERE}\s+{_PLACE}"
    r"\S*(?:\s+[^\s,;]+){0,4}[.!?]?\s*$",
    re.IGNORECASE,
)
# A pointing clause inside a sentence that says something else.
_POINTER_CLAUSES = (
    # "(see Section 25.1)", "(described in Chapter 3)"
    re.compile(
        rf"\s?\(\s*(?:{_DIRECTS}\b|{_WHERE}\s+{_PLACE})[^()]*(?:\([^()]*\)[^()]*)*\)",
        re.IGNORECASE,
    ),
    # ", which is described in Section 25.1.6", ", as explained below"
    re.compile(
        rf",\s*(?:which|that|as)\s+(?:(?:is|are)\s+)?{_WHERE}\s+{_PLACE}[^,;]*?(?=[.;!?]?\s*$)",
        re.IGNORECASE,
    ),
)
# "…, see Section 20.10." closing a sentence.
_CLOSING_POINTER = re.compile(rf"[,;]\s?{_DIRECTS}\b[^,;]*?(?=[.;!?]?\s*$)", re.IGNORECASE)
# What an opening clause starts with when the pointer after it is the sentence's main clause
# ("If this is not desired, see git-repack(1).", "To customize the task, see launchctl(5).").
_SUBORDINATE_OPENING = re.compile(r"^\s*(?:to|for|if|when|unless)\b", re.IGNORECASE)
# What is left of a sentence once its pointer goes must still say something.
MIN_WORDS_LEFT = 4
MAX_SENTENCE_CHARS = 1000


def without_pointers(sentence: str) -> str:
    """`sentence` without its cross-reference clauses; "" when pointing is all it does."""
    if len(sentence) > MAX_SENTENCE_CHARS:
        return sentence  # no sentence: the clause patterns would scan it in quadratic time
    if _POINTER_SENTENCE.match(sentence) or _WHERE_SENTENCE.match(sentence):
        return ""
    text = sentence
    for clause in _POINTER_CLAUSES:
        text = clause.sub("", text)
    closed = _CLOSING_POINTER.sub("", text)
    if closed != text and _SUBORDINATE_OPENING.match(closed) and closed.count(",") == 0:
        return ""
    text = closed
    if text == sentence:
        return sentence
    if len(text.split()) < MIN_WORDS_LEFT:
        return ""
    text = text.rstrip()
    return text if text[-1:] in ".!?" else text + "."
