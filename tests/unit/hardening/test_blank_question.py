"""A question with nothing in it is refused before a session starts."""

from __future__ import annotations

import pytest

from tests.unit.hardening.conftest import Sandbox


@pytest.mark.parametrize("question", ["   ", "\t\n", "\x1b[2J\u202e"])
def test_a_blank_question_is_refused_with_exit_code_2(sandbox: Sandbox, question: str):
    code, out, err = sandbox.run("run", question, "--yes")
    assert code == 2
    assert "deepresearch run: the question is empty" in err
    assert out == ""
    assert sandbox.run("sessions")[1] == "no saved sessions\n"
