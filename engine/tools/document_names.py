"""The key a document is cited by: its path in the folder, made plain where it is not.

Citations name a local document by its key (`notes.md`, `guide.pdf, p.3`), and the verifier
recognises a key as a run of letters, digits, `_`, `-`, `.` and `/` ending in a document
extension (engine/citations/keys.py). A file named `<b>tasks<b> [draft](x).md` or holding an
escape sequence was indexed under its raw name, which the writer's markup and the verifier's
parsing both mangled: its citation was dropped and its sentence stayed uncited. Such a name
gets a plain key instead: every other character becomes `-`, and a short digest of the real
name keeps two different names from ever sharing a key. Plain names keep their key as is.
"""

from __future__ import annotations

import hashlib
import re

# What a document name may keep in its key: what the verifier reads as part of one.
_UNSAFE = re.compile(r"[^\w./-]")
_DASHES = re.compile(r"-{2,}")


def citation_key(rel_path: str) -> str:
    """The key of the document at `rel_path` (relative to the documents folder)."""
    plain = _UNSAFE.sub("-", rel_path)
    if plain == rel_path:
        return rel_path
    folder, _, name = plain.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    stem = _DASHES.sub("-", stem).strip("-") or "document"
    digest = hashlib.sha256(rel_path.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    key = f"{stem}-{digest}" + (f".{extension}" if dot else "")
    return f"{folder}/{key}" if folder else key
