"""Numbered citation markers (`[1]`, `[1, 3]`, `[2–4]`) as the engine itself writes them.

The many styles models write (`[^1]`, `【1†L2】`, `(Source 1)`, superscripts) are read by
`engine.citations.markers`; this module holds the engine's own bracketed form, which every
other package matches, strips or writes.
"""

from __future__ import annotations


def cite_sentence(sentence: str, number: int) -> str:
    """`sentence` with `[number]` before its final stop (or at its end)."""
    stripped = sentence.rstrip()
    if stripped and stripped[-1] in ".!?":
        return f"{stripped[:-1]} [{number}]{stripped[-1]}"
    return f"{stripped} [{number}]"
