"""Two names of the page with their roles swapped: the claim puts one where the page puts the
other."""

from __future__ import annotations

import pytest

from engine.grounding.names import role_swap, roles
from engine.grounding.score import score_claim

WAIT = (
    "Unlike wait_for(), wait() does not cancel the futures when a timeout occurs. Changed in "
    "version 3.11: Passing coroutine objects to wait() directly is forbidden."
)
VENV = (
    "When a Python interpreter is running from a virtual environment, sys.prefix and "
    "sys.exec_prefix point to the directories of the virtual environment. It is sufficient to "
    "check sys.prefix == sys.base_prefix to determine if the current interpreter is running "
    "from a virtual environment."
)
HOOKS = (
    "The return value of *object_pairs_hook* will be used instead of the dict. If "
    "*object_hook* is also defined, the *object_pairs_hook* takes priority."
)
LOGGER_LEVEL = (
    "When a logger is created, the level is set to NOTSET (which causes delegation to the "
    "parent when the logger is a non-root logger). Note that the root logger is created with "
    "level WARNING."
)


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("Unlike wait(), wait_for() does not cancel the futures when a timeout occurs.", WAIT),
        ("Checking sys.exec_prefix == sys.prefix tells whether Python runs in a venv.", VENV),
        ("When both hooks are given, object_hook takes priority over object_pairs_hook.", HOOKS),
    ],
)
def test_a_name_put_where_the_page_puts_another_is_unsupported(claim: str, passage: str) -> None:
    verdict = score_claim(claim, [passage])
    assert verdict.status == "unsupported"
    assert verdict.reason.startswith("its sources say ")


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("wait() does not cancel the futures on a timeout, unlike wait_for().", WAIT),
        ("Checking sys.prefix == sys.base_prefix tells whether Python runs in a venv.", VENV),
        ("When object_hook is defined as well, object_pairs_hook takes priority.", HOOKS),
        # "level" stands beside WARNING on the page, but NOTSET is said with it too.
        ("A new logger has level NOTSET and defers to its parent logger.", LOGGER_LEVEL),
    ],
)
def test_names_in_their_own_roles_are_not_called_swapped(claim: str, passage: str) -> None:
    assert score_claim(claim, [passage]).status != "unsupported"


def test_names_listed_together_share_the_words_beside_them() -> None:
    found = roles("sys.prefix and sys.exec_prefix point to the environment.")
    assert ("sys.prefix", ">", "point") in found.beside
    assert ("sys.exec_prefix", ">", "point") in found.beside


def test_a_name_the_claim_puts_beside_a_word_the_page_never_says_with_it_is_swapped() -> None:
    claim = roles("urllib.request.urlopen() corresponds to the old urllib.urlopen function.")
    page = roles(
        "The legacy urllib.urlopen function has been discontinued; urllib.request.urlopen() "
        "corresponds to the old urllib2.urlopen."
    )
    assert role_swap(claim, page) == ("urllib.urlopen", "urllib2.urlopen")
