"""`deepresearch audit SESSION`: what verification kept, removed and why, for a saved report.

Every finished question saves `reports/SESSION.audit.json` beside its report (a follow-up
question of the same session `reports/SESSION-N.audit.json`). This command prints it for a
person — citations kept and removed, each claim's support — or, with `--json`, as it is.
Everything in an audit came from a model or a document, so every text goes through
`engine.terminal_text` before it reaches the terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import load_settings
from engine.protocol import is_session_id
from engine.verification_words import verification_summary

if TYPE_CHECKING:
    from engine.config import Settings
    from engine.protocol import SessionInfo

EXIT_OK = 0
EXIT_UNREADABLE = 1
EXIT_USAGE = 2

DEFAULT_WIDTH = 100
_MIN_TEXT_WIDTH = 30
# Left in a JSON string by `json.dumps(ensure_ascii=False)` but able to drive a terminal:
# DEL, the C1 controls and the bidi controls. Written as \\uXXXX escapes they parse the same.
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069]"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="show what verification kept, removed and why for a session's report",
        description="Print the verification audit of a saved session: citations kept and "
        "removed, and the support of every cited claim. SESSION is a session id or a unique "
        "prefix of one (see deepresearch sessions).",
    )
    parser.add_argument("session", metavar="SESSION", help="a session id or a unique prefix")
    parser.add_argument(
        "--json", action="store_true", help="print the saved audit JSON itself, for scripts"
    )
    parser.add_argument(
        "--run",
        type=_positive_int,
        metavar="N",
        help="the audit of the session's Nth question (default: the latest)",
    )
    parser.set_defaults(handler=run)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed: 1 or more")
    return value


class AuditError(Exception):
    """A one-line reason the command stops, with its exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def run(args: argparse.Namespace) -> int:
    from engine.sessions import list_sessions

    settings = load_settings()
    try:
        try:
            sessions = list_sessions(settings)
        except sqlite3.Error as exc:
            raise AuditError(f"cannot read the session index: {exc}", EXIT_UNREADABLE) from None
        info = resolve_session(sessions, args.session)
        run_number, path = pick_audit(settings, info, args.run)
        audit = read_audit(path)
        if args.json:
            lines = [json_text(audit)]
        else:
            runs = max(audit_files(settings, info.session_id))
            lines = render(audit, info.session_id, run_number, runs, path, _width())
    except AuditError as exc:
        print(f"deepresearch audit: {exc}", file=sys.stderr)
        return exc.code
    try:
        for line in lines:
            print(line, flush=True)
    except BrokenPipeError:
        # The reader stopped early (`deepresearch audit ID | head`): that is not an error.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_OK


# --- which session, which file ------------------------------------------------------------


def _shown(text: str) -> str:
    from engine.terminal_text import one_line

    return one_line(text)


def resolve_session(sessions: list[SessionInfo], wanted: str) -> SessionInfo:
    """The session `wanted` names: an exact id, else the only id that starts with it."""
    shown = _shown(wanted)
    if not wanted or not is_session_id(wanted):
        raise AuditError(f"no saved session {shown!r} (see deepresearch sessions)", EXIT_USAGE)
    exact = [info for info in sessions if info.session_id == wanted]
    if exact:
        return exact[0]
    matches = [info for info in sessions if info.session_id.startswith(wanted)]
    if not matches:
        raise AuditError(f"no saved session {shown!r} (see deepresearch sessions)", EXIT_USAGE)
    if len(matches) > 1:
        names = ", ".join(sorted(info.session_id for info in matches))
        raise AuditError(
            f"session id {shown!r} is ambiguous: it starts {names}; give more of it",
            EXIT_USAGE,
        )
    return matches[0]


def audit_files(settings: Settings, session_id: str) -> dict[int, Path]:
    """Every saved audit of a session, by question number (1 is the first question)."""
    if not is_session_id(session_id):
        return {}
    folder = settings.reports_dir
    found: dict[int, Path] = {}
    first = folder / f"{session_id}.audit.json"
    if first.is_file():
        found[1] = first
    if folder.is_dir():
        pattern = re.compile(re.escape(session_id) + r"-(\d+)\.audit\.json")
        for path in folder.iterdir():
            match = pattern.fullmatch(path.name)
            if match and int(match.group(1)) > 1 and path.is_file():
                found[int(match.group(1))] = path
    return dict(sorted(found.items()))


def pick_audit(settings: Settings, info: SessionInfo, wanted: int | None) -> tuple[int, Path]:
    """The question number and audit file to show: `wanted`, else the latest saved."""
    session_id = info.session_id
    files = audit_files(settings, session_id)
    if not files:
        message = f"session {session_id} has no report yet"
        if info.status == "interrupted":
            message += f"; it was interrupted — resume with: deepresearch run --resume {session_id}"
        else:
            message += f" (status: {info.status})"
        raise AuditError(message, EXIT_USAGE)
    if wanted is None:
        return max(files), files[max(files)]
    if wanted not in files:
        available = ", ".join(str(number) for number in files)
        raise AuditError(
            f"session {session_id} has no audit for question {wanted} (saved: {available})",
            EXIT_USAGE,
        )
    return wanted, files[wanted]


def read_audit(path: Path) -> dict[str, Any]:
    """The saved audit, checked to have the shape this command prints."""
    where = _shown(str(path))
    try:
        audit = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise AuditError(f"cannot read {where}: {_shown(reason)}", EXIT_UNREADABLE) from None
    problem = _shape_problem(audit)
    if problem:
        raise AuditError(f"cannot read {where}: {problem}", EXIT_UNREADABLE)
    return audit


def _shape_problem(audit: Any) -> str | None:
    if not isinstance(audit, dict):
        return "not a JSON object"
    for key in ("kept_citations", "removed_citations", "claims"):
        entries = audit.get(key, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return f"{key!r} is not a list of objects"
    return None


# --- printing ----------------------------------------------------------------------------


def json_text(audit: dict[str, Any]) -> str:
    """The audit as indented JSON that parses back to the same value and is terminal-safe."""
    text = json.dumps(audit, indent=2, ensure_ascii=False)
    # json.dumps already escapes C0 controls (ESC included); C1 and bidi controls it leaves.
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _width() -> int:
    if sys.stdout.isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


def _text(value: Any) -> str:
    return _shown(value if isinstance(value, str) else "" if value is None else str(value))


def _cut(text: str, width: int) -> str:
    width = max(width, _MIN_TEXT_WIDTH)
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _score(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return "  - "


@dataclass(frozen=True)
class Summary:
    claims: int
    supported: int
    removed: int
    marked: int

    def line(self) -> str:
        if not self.claims:
            return "Summary: 0 claims"
        percent = 100 * self.supported / self.claims
        noun = "claim" if self.claims == 1 else "claims"
        return (
            f"Summary: {self.claims} {noun}, {percent:.0f}% supported, "
            f"{self.removed} removed, {self.marked} marked"
        )


def summarize(claims: list[dict[str, Any]]) -> Summary:
    return Summary(
        claims=len(claims),
        supported=sum(1 for claim in claims if claim.get("status") == "supported"),
        removed=sum(1 for claim in claims if claim.get("action") == "removed"),
        marked=sum(1 for claim in claims if claim.get("action") == "marked"),
    )


_DECIDERS = {
    "quote": "its words, found in its source",
    "rule": "the rules",
    "judge": "the judge",
}


def decided_lines(claim: dict[str, Any], indent: str, width: int) -> list[str]:
    """Who decided a claim's verdict and the passage that decided it (audits that record it)."""
    decider = _text(claim.get("decided_by"))
    if not decider:
        return []
    lines = [_cut(f"{indent}decided by: {_DECIDERS.get(decider, decider)}", width)]
    source = _text(claim.get("passage_source"))
    words = _text(claim.get("excerpt"))
    if source and words:
        place = f"{source}, passage {claim.get('passage_number') or 1}, "
        place += f"character {claim.get('passage_offset') or 0}"
        lines.append(_cut(f"{indent}passage: {place}", width))
        lines.append(_cut(f"{indent}  “{words}”", width))
    failed = _text(claim.get("judge_error"))
    if failed:
        lines.append(_cut(f"{indent}judge: {failed}; the rules' verdict stands", width))
    if claim.get("answers_question") is False:
        lines.append(_cut(f"{indent}judge: it does not answer the question asked", width))
    return lines


def render(
    audit: dict[str, Any],
    session_id: str,
    run_number: int,
    runs: int,
    path: Path,
    width: int = DEFAULT_WIDTH,
) -> list[str]:
    """The audit as lines for a person."""
    question_label = f" (question {run_number} of {runs})" if runs > 1 else ""
    verification = verification_summary(
        _text(audit.get("verification_status")),
        _text(audit.get("verification_reason")),
        len(audit.get("kept_citations", [])),
        len(audit.get("removed_citations", [])),
    )
    lines = [
        f"Session       {session_id}{question_label}",
        f"Question      {_cut(_text(audit.get('question')), width - 14)}",
        f"Mode          {_text(audit.get('mode')) or 'unknown'}",
        f"Verification  {verification}",
        f"Grounding     {_text(audit.get('grounding')) or 'not recorded'}",
        *(
            [f"Judge         {_text(audit.get('grounding_judge'))}"]
            if "grounding_judge" in audit
            else []
        ),
        f"Audit file    {_shown(str(path))}",
        "",
    ]
    kept: list[dict[str, Any]] = audit.get("kept_citations", [])
    removed: list[dict[str, Any]] = audit.get("removed_citations", [])
    lines.append(f"Citations kept ({len(kept)})")
    lines += [
        _cut(f"  [{_text(entry.get('number'))}] {_text(entry.get('source'))}", width)
        for entry in kept
    ] or ["  none"]
    lines.append(f"Citations removed ({len(removed)})")
    for entry in removed:
        line = f"  [{_text(entry.get('number'))}] {_text(entry.get('source'))}"
        why = _text(entry.get("reason"))
        lines.append(_cut(line + (f" — {why}" if why else ""), width))
    if not removed:
        lines.append("  none")
    lines.append("")
    if "claims" not in audit:
        lines.append("Claims: no claim-level grounding recorded (audit written before grounding)")
        return lines
    claims: list[dict[str, Any]] = audit["claims"]
    lines.append(f"Claims ({len(claims)})")
    if not claims:
        lines.append(
            "  none checked (grounding off)"
            if audit.get("grounding") == "off"
            else "  none: no cited sentence to check"
        )
    for claim in claims:
        claim_status = _text(claim.get("status")) or "unknown"
        action = _text(claim.get("action")) or "kept"
        head = f"  {claim_status:<11} {_score(claim.get('score')):>4}  {action:<7}  "
        lines.append(head + _cut(_text(claim.get("text")), width - len(head)))
        why = _text(claim.get("reason"))
        if claim_status != "supported" and why:
            lines.append(_cut(f"{'':<{len(head)}}reason: {why}", width))
        lines += decided_lines(claim, " " * len(head), width)
    lines.append("")
    lines.append(summarize(claims).line())
    return lines
