"""`deepresearch audit SESSION`: a saved report's verification audit, for people and scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.config import Settings, load_settings
from engine.nodes.verify import save_report
from engine.protocol import SessionStatus
from engine.sessions import record_session

SESSION = "20250101-120000-abc123"


def claim(text: str, status: str, action: str, score: float, reason: str = "") -> dict[str, Any]:
    return {
        "text": text,
        "numbers": [1],
        "sources": ["https://alpha.example.org/a"],
        "score": score,
        "status": status,
        "reason": reason,
        "action": action,
    }


def make_audit(**overrides: Any) -> dict[str, Any]:
    audit: dict[str, Any] = {
        "question": "How do caches work?",
        "mode": "deep",
        "verification_status": "verified",
        "verification_reason": "valid_citations",
        "kept_citations": [
            {"number": 1, "source": "https://alpha.example.org/a", "reason": None},
            {"number": 2, "source": "https://beta.example.org/b", "reason": None},
        ],
        "removed_citations": [
            {"number": 3, "source": "https://gone.example.org/x", "reason": "not_retrieved"}
        ],
        "grounding": "strict",
        "claims": [
            claim("Caches keep recent data close to the CPU. [1]", "supported", "kept", 0.91),
            claim("Cache lines are 64 bytes. [2]", "supported", "kept", 0.8),
            claim("Weakly backed sentence. [1]", "weak", "kept", 0.42, "few shared terms"),
            claim(
                "Caches were invented in 1802. [1]",
                "unsupported",
                "removed",
                0.05,
                "no source sentence supports it",
            ),
        ],
        "verification": {"status": "verified"},
        "sanitization": {"removed": []},
    }
    audit.update(overrides)
    return audit


@dataclass
class Cli:
    settings: Settings
    capsys: pytest.CaptureFixture[str]

    def run(self, *argv: str) -> tuple[int, str, str]:
        code = main(["audit", *argv])
        out, err = self.capsys.readouterr()
        return code, out, err

    def session(
        self,
        session_id: str = SESSION,
        *,
        status: SessionStatus = "completed",
        audits: dict[int, dict[str, Any] | str] | None = None,
    ) -> None:
        """A session row and, per question number, its report and audit (a str: raw text)."""
        record_session(self.settings, session_id, status=status, question="How do caches work?")
        for number, audit in (audits or {}).items():
            if isinstance(audit, str):
                self.settings.reports_dir.mkdir(parents=True, exist_ok=True)
                stem = session_id if number == 1 else f"{session_id}-{number}"
                (self.settings.reports_dir / f"{stem}.md").write_text("# Report\n")
                (self.settings.reports_dir / f"{stem}.audit.json").write_text(audit)
            else:
                save_report(self.settings.reports_dir, session_id, "# Report\n", audit, number)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", "")
    monkeypatch.chdir(tmp_path)
    return Cli(load_settings(), capsys)


def test_prints_citations_claims_and_a_summary(cli: Cli) -> None:
    cli.session(audits={1: make_audit()})
    code, out, err = cli.run(SESSION)
    assert code == 0, err
    lines = out.splitlines()
    assert f"Session       {SESSION}" in lines
    assert "Question      How do caches work?" in lines
    assert "Mode          deep" in lines
    assert "Verification  verified: 2 citations kept, 1 removed" in lines
    assert "Grounding     strict" in lines

    kept = lines.index("Citations kept (2)")
    assert lines[kept + 1 : kept + 3] == [
        "  [1] https://alpha.example.org/a",
        "  [2] https://beta.example.org/b",
    ]
    removed = lines.index("Citations removed (1)")
    assert lines[removed + 1] == "  [3] https://gone.example.org/x — not_retrieved"

    claims = lines.index("Claims (4)")
    assert lines[claims + 1].split() == [
        "supported",
        "0.91",
        "kept",
        "Caches",
        "keep",
        "recent",
        "data",
        "close",
        "to",
        "the",
        "CPU.",
        "[1]",
    ]
    removed_claim = next(line for line in lines if "invented in 1802" in line)
    assert removed_claim.split()[:3] == ["unsupported", "0.05", "removed"]
    after = lines[lines.index(removed_claim) + 1]
    assert after.strip() == "reason: no source sentence supports it"
    weak = lines.index(next(line for line in lines if "Weakly backed" in line))
    assert lines[weak].split()[:3] == ["weak", "0.42", "kept"]
    assert lines[weak + 1].strip() == "reason: few shared terms"
    # A supported claim gets no reason line.
    assert "reason:" not in lines[claims + 2]

    assert lines[-1] == "Summary: 4 claims, 50% supported, 1 removed, 0 marked"


def test_summary_counts_marked_claims_and_rounds_the_percentage(cli: Cli) -> None:
    claims = [
        claim("One. [1]", "supported", "kept", 0.9),
        claim("Two. [1]", "unsupported", "marked", 0.1, "no support"),
        claim("Three. [1]", "unsupported", "marked", 0.0, "no support"),
    ]
    cli.session(audits={1: make_audit(grounding="mark", claims=claims)})
    code, out, _ = cli.run(SESSION)
    assert code == 0
    assert out.splitlines()[-1] == "Summary: 3 claims, 33% supported, 0 removed, 2 marked"


def test_json_prints_the_saved_audit_itself(cli: Cli) -> None:
    audit = make_audit(question="Caches — “why”?")
    cli.session(audits={1: audit})
    code, out, _ = cli.run(SESSION, "--json")
    assert code == 0
    assert json.loads(out) == audit
    assert out.startswith('{\n  "question": "Caches — “why”?"')  # indent=2, not \\u escapes


def test_json_escapes_what_could_drive_the_terminal_and_still_round_trips(cli: Cli) -> None:
    audit = make_audit(question="evil \x1b]0;title\x07 \x9b31m \u202e text")
    cli.session(audits={1: audit})
    code, out, _ = cli.run(SESSION, "--json")
    assert code == 0
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    assert json.loads(out) == audit


def test_a_unique_prefix_picks_the_session(cli: Cli) -> None:
    cli.session(audits={1: make_audit()})
    cli.session("20250202-090000-def456", audits={1: make_audit(question="Other?")})
    code, out, _ = cli.run("20250101")
    assert code == 0
    assert f"Session       {SESSION}" in out and "How do caches work?" in out


def test_an_exact_id_wins_over_longer_ids_it_prefixes(cli: Cli) -> None:
    cli.session("abc", audits={1: make_audit(question="Short?")})
    cli.session("abcdef", audits={1: make_audit(question="Long?")})
    code, out, _ = cli.run("abc")
    assert code == 0 and "Short?" in out


def test_an_ambiguous_prefix_names_the_candidates(cli: Cli) -> None:
    cli.session("20250101-120000-abc123", audits={1: make_audit()})
    cli.session("20250101-130000-fff000", audits={1: make_audit()})
    code, out, err = cli.run("20250101")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "'20250101' is ambiguous" in err
    assert "20250101-120000-abc123" in err and "20250101-130000-fff000" in err


def test_an_unknown_session_is_one_line_and_exit_2(cli: Cli) -> None:
    cli.session(audits={1: make_audit()})
    code, out, err = cli.run("nope")
    assert code == 2 and out == ""
    assert err == "deepresearch audit: no saved session 'nope' (see deepresearch sessions)\n"


def test_an_unknown_session_with_no_index_at_all_is_exit_2(cli: Cli) -> None:
    code, _, err = cli.run("20250101")
    assert code == 2 and "no saved session '20250101'" in err


def test_a_hostile_session_argument_is_not_echoed_raw(cli: Cli) -> None:
    code, _, err = cli.run("../\x1b[2Jx")
    assert code == 2 and "\x1b" not in err and "no saved session" in err


def test_an_interrupted_session_without_a_report_suggests_resuming(cli: Cli) -> None:
    cli.session(status="interrupted")
    code, out, err = cli.run(SESSION[:10])
    assert code == 2 and out == ""
    assert f"session {SESSION} has no report yet" in err
    assert f"deepresearch run --resume {SESSION}" in err
    assert err.count("\n") == 1


def test_a_session_awaiting_review_has_no_report_yet(cli: Cli) -> None:
    cli.session(status="awaiting_plan_review")
    code, _, err = cli.run(SESSION)
    assert code == 2
    assert "has no report yet (status: awaiting_plan_review)" in err
    assert "--resume" not in err


def test_an_old_audit_without_claims_says_grounding_was_not_recorded(cli: Cli) -> None:
    audit = make_audit()
    del audit["claims"], audit["grounding"]
    cli.session(audits={1: audit})
    code, out, _ = cli.run(SESSION)
    assert code == 0
    assert "no claim-level grounding recorded (audit written before grounding)" in out
    assert "Grounding     not recorded" in out
    assert "Summary" not in out
    assert "  [3] https://gone.example.org/x — not_retrieved" in out


def test_control_sequences_in_audit_text_never_reach_the_terminal(cli: Cli) -> None:
    hostile = "Red \x1b[31mtext\x1b[0m and a \x1b]0;pwned\x07title\nsecond line. [1]"
    audit = make_audit(
        question="Q \x1b[2J?",
        claims=[claim(hostile, "unsupported", "removed", 0.0, "bad \x1b[1mreason")],
        removed_citations=[{"number": 4, "source": "evil\x9b2J.html", "reason": "x\u202ey"}],
    )
    cli.session(audits={1: audit})
    code, out, _ = cli.run(SESSION)
    assert code == 0
    for control in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert control not in out
    assert "Red text and a title second line. [1]" in out  # one line, sequences dropped
    assert "reason: bad reason" in out
    assert "Question      Q ?" in out


def test_a_long_claim_is_cut_to_one_line_with_an_ellipsis(cli: Cli) -> None:
    text = "word " * 60 + "[1]"
    cli.session(audits={1: make_audit(claims=[claim(text, "supported", "kept", 1.0)])})
    code, out, _ = cli.run(SESSION)
    assert code == 0
    line = next(line for line in out.splitlines() if "word word" in line)
    assert line.endswith("…") and len(line) <= 100


def test_run_picks_the_nth_question_and_the_latest_is_the_default(cli: Cli) -> None:
    cli.session(
        audits={
            1: make_audit(question="First question?"),
            2: make_audit(question="Second question?"),
            3: make_audit(question="Third question?"),
        }
    )
    assert (cli.settings.reports_dir / f"{SESSION}-2.audit.json").is_file()

    code, out, _ = cli.run(SESSION)
    assert code == 0
    assert "Third question?" in out and f"{SESSION} (question 3 of 3)" in out

    code, out, _ = cli.run(SESSION, "--run", "2")
    assert code == 0
    assert "Second question?" in out and "(question 2 of 3)" in out

    code, out, _ = cli.run(SESSION, "--run", "1", "--json")
    assert code == 0 and json.loads(out)["question"] == "First question?"

    code, out, err = cli.run(SESSION, "--run", "7")
    assert code == 2 and out == ""
    assert "has no audit for question 7 (saved: 1, 2, 3)" in err


def test_run_must_be_a_positive_number(cli: Cli) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["audit", SESSION, "--run", "0"])
    assert exited.value.code == 2


def test_another_sessions_files_are_not_taken_for_follow_ups(cli: Cli) -> None:
    cli.session("abc", audits={1: make_audit(question="Mine?")})
    cli.session("abc-x", audits={1: make_audit(question="Not mine?")})
    code, out, _ = cli.run("abc")
    assert code == 0 and "Mine?" in out and "question 1 of" not in out


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "Expecting property name"),
        ("[1, 2]", "not a JSON object"),
        ('{"claims": "nope"}', "'claims' is not a list of objects"),
        ('{"kept_citations": [1]}', "'kept_citations' is not a list of objects"),
    ],
)
def test_a_corrupt_audit_is_one_line_naming_the_file_and_exit_1(
    cli: Cli, content: str, problem: str
) -> None:
    cli.session(audits={1: content})
    code, out, err = cli.run(SESSION)
    assert code == 1 and out == ""
    path = cli.settings.reports_dir / f"{SESSION}.audit.json"
    assert err.startswith(f"deepresearch audit: cannot read {path}: ")
    assert problem in err and err.count("\n") == 1


def test_an_audit_with_odd_values_still_prints(cli: Cli) -> None:
    audit = {"claims": [{"text": None, "score": "high"}], "kept_citations": [{}]}
    cli.session(audits={1: json.dumps(audit)})
    code, out, _ = cli.run(SESSION)
    assert code == 0
    assert "Verification  unknown" in out
    assert out.splitlines()[-1] == "Summary: 1 claim, 0% supported, 0 removed, 0 marked"


def test_a_reader_that_stops_early_is_not_an_error(cli: Cli, tmp_path: Path) -> None:
    cli.session(audits={1: make_audit()})
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from engine.cli import main; sys.exit(main())",
            "audit",
            SESSION,
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    child.stdout.close()  # like `| head` gone before the first line is written
    _, err = child.communicate(timeout=60)
    assert child.returncode == 0
    assert err == b""


def test_each_claim_shows_who_decided_and_the_passage_that_did() -> None:
    from engine.commands.audit import render

    quoted = {
        **claim(
            "If the stdout argument was not PIPE, this attribute is None.", "supported", "kept", 1.0
        ),
        "decided_by": "quote",
        "passage_source": "subprocess.html",
        "passage_number": 1,
        "passage_offset": 4210,
        "excerpt": "If the stdout argument was not PIPE, this attribute is None",
    }
    failed = {
        **claim("Sessions last 90 days.", "supported", "kept", 0.8),
        "decided_by": "rule",
        "judge_error": "the judge's call failed (APITimeoutError)",
    }
    audit = make_audit(claims=[quoted, failed], grounding_judge="local at 127.0.0.1:8081")
    lines = render(audit, SESSION, 1, 1, Path("a.audit.json"), width=120)
    text = "\n".join(lines)
    assert "Judge         local at 127.0.0.1:8081" in text
    at = next(i for i, line in enumerate(lines) if "stdout argument was not PIPE" in line)
    assert lines[at + 1].strip() == "decided by: its words, found in its source"
    assert lines[at + 2].strip() == "passage: subprocess.html, passage 1, character 4210"
    assert lines[at + 3].strip() == "“If the stdout argument was not PIPE, this attribute is None”"
    assert "judge: the judge's call failed (APITimeoutError); the rules' verdict stands" in text
