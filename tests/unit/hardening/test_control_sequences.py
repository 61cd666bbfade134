"""Terminal control sequences in a question never reach the terminal or the stored session."""

from __future__ import annotations

import re

from engine.terminal_text import one_line, terminal_safe
from tests.unit.hardening.conftest import Sandbox

HOSTILE = "How are \x1b]0;pwned\x07tasks \x1b[2Jcancelled\x9b31m \u202eevil\u202c\x07\x00?"
# Anything a terminal would act on: ESC, C0 (but newline and tab), C1, bidi controls.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_escape_sequences_c0_c1_and_bidi_controls_are_removed():
    assert one_line(HOSTILE) == "How are tasks cancelled evil ?"
    assert terminal_safe("line one\n\tline two\x1b[31m red\x1b[0m\r\n") == (
        "line one\n\tline two red\n"
    )
    # An OSC string cut short still swallows its payload rather than leaking it.
    assert terminal_safe("title \x1b]0;rest of it") == "title "
    assert terminal_safe("plain text, ünïcode — fine") == "plain text, ünïcode — fine"


def test_a_hostile_question_is_clean_in_the_report_stdout_stderr_and_sessions(
    sandbox: Sandbox,
):
    code, out, err = sandbox.run("run", HOSTILE, "--yes", "--mode", "quick")
    assert code in (0, 4), err
    assert not _CONTROL.search(out) and not _CONTROL.search(err)
    assert "tasks cancelled" in out
    report_files = list((sandbox.data_dir / "reports").glob("*.md"))
    assert report_files
    for report in report_files:
        assert not _CONTROL.search(report.read_text(encoding="utf-8"))

    code, out, _ = sandbox.run("sessions")
    assert code == 0
    assert "How are tasks cancelled evil ?" in out
    assert not _CONTROL.search(out)
