"""Swaps the support scorer catches outright, and negations whose scope it reads: each case
pairs a wrong claim that must be unsupported with a right one about the same passage that
must not be."""

from __future__ import annotations

import pytest

from engine.grounding.score import score_claim

MKDIR = (
    "Path.mkdir(mode=0o777, parents=False, exist_ok=False) - Create a new directory at this "
    "given path. If mode is given, it is combined with the process' umask value to determine "
    "the file mode and access flags. If the path already exists, FileExistsError is raised. If "
    "parents is false (the default), a missing parent raises FileNotFoundError."
)
EXCEPTHOOK = (
    "If exc_type is SystemExit, the exception is silently ignored. Otherwise, the exception is "
    "printed out on sys.stderr."
)
WRAPS = (
    "@functools.wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS) - This is a convenience function "
    "for invoking update_wrapper() as a function decorator. It "
    "is equivalent to partial(update_wrapper, wrapped=wrapped, assigned=assigned)."
)
IDENTIFIERS = (
    "The string printed as the exception type is the name of the built-in exception that "
    "occurred. Standard exception names are built-in identifiers (not reserved keywords)."
)
ASYNCIO_RUN = (
    "This function runs the passed coroutine, taking care of managing the asyncio event loop. "
    "This function cannot be called when another asyncio event loop is running in the same "
    "thread."
)
CALLBACK_TRACEBACKS = (
    "By default you will not get any tracebacks in user-defined functions, aggregates, "
    "converters, authorizer callbacks etc. If you want to debug them, you can call this "
    "function with flag set to True. Afterwards, you will get tracebacks from callbacks on "
    "sys.stderr."
)
TOTAL_ORDERING = (
    "This decorator makes no attempt to override methods that have been declared in the class "
    "or its superclasses."
)
DEFAULTDICT_GET = (
    "Note that __missing__() is not called for any operations besides __getitem__(). This "
    "means that get() will, like normal dictionaries, return None as a default rather than "
    "using default_factory."
)


@pytest.mark.parametrize(
    ("wrong", "right", "passage"),
    [
        # An octal literal is a number the sources must state.
        (
            "Path.mkdir() uses a default mode of 0o755.",
            "Path.mkdir() uses a default mode of 0o777.",
            MKDIR,
        ),
        # A built-in exception is a sibling of another even without "Error" in its name.
        (
            "threading.excepthook() silently ignores an uncaught KeyboardInterrupt.",
            "threading.excepthook() silently ignores SystemExit.",
            EXCEPTHOOK,
        ),
        # A call written with its arguments is a code name.
        (
            "wraps() is equivalent to partialmethod(update_wrapper, wrapped=wrapped).",
            "wraps() is equivalent to partial(update_wrapper, wrapped=wrapped).",
            WRAPS,
        ),
        # A negation in brackets says what the clause before it is not.
        (
            "Standard exception names such as ValueError are reserved keywords in Python.",
            "Standard exception names such as ValueError are built-in identifiers in Python.",
            IDENTIFIERS,
        ),
        # A clause stated on its own is compared with the source's condition, not its main part.
        (
            "asyncio.run() refuses to run while no other event loop is running in the thread.",
            "asyncio.run() refuses to run while another event loop is already running in the "
            "same thread.",
            ASYNCIO_RUN,
        ),
        # "makes no attempt to override" negates *override*.
        (
            "total_ordering overrides methods that a superclass already declares.",
            "total_ordering does not override methods that a superclass already declares.",
            TOTAL_ORDERING,
        ),
    ],
)
def test_the_wrong_claim_is_unsupported_and_the_right_one_is_not(
    wrong: str, right: str, passage: str
) -> None:
    assert score_claim(wrong, [passage]).status == "unsupported"
    assert score_claim(right, [passage]).status != "unsupported"


def test_a_noun_the_claim_negates_is_not_affirmed_against_a_source_that_negates_it() -> None:
    claim = (
        "Exceptions raised inside sqlite3 user-defined functions and other callbacks produce no "
        "traceback unless enable_callback_tracebacks(True) has been called."
    )
    assert score_claim(claim, [CALLBACK_TRACEBACKS]).status != "unsupported"
    affirmed = "Exceptions inside sqlite3 user-defined functions get tracebacks by default."
    assert score_claim(affirmed, [CALLBACK_TRACEBACKS]).status == "unsupported"


def test_a_negation_after_a_comma_joins_its_clause_only_as_a_second_reading() -> None:
    passage = "The handler names fifo, not sigint, as the signal it waits for."
    assert score_claim("The handler names fifo, not sigint.", [passage]).status != "unsupported"
    assert score_claim("The handler names fifo as its signal.", [passage]).status != "unsupported"
