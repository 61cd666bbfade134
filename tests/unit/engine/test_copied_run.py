"""A reply that copies a passage it was shown at more length than a finding quotes is seen
whatever its shape; findings that quote a sentence or two are not."""

from __future__ import annotations

import re

from engine.sourcing.copied_run import MIN_RUN_WORDS, CopiedRun

# A passage as the researcher is shown it: a reference page's list, flattened.
PASSAGE = (
    "autovacuum_vacuum_threshold (integer) - Specifies the minimum number of updated or "
    "deleted tuples needed to trigger a VACUUM in any one table. The default is 50 tuples. "
    "This parameter can only be set in the postgresql.conf file or on the server command "
    "line; but the setting can be overridden for individual tables by changing table storage "
    "parameters. - autovacuum_vacuum_scale_factor (floating point) - Specifies a fraction of "
    "the table size to add to autovacuum_vacuum_threshold when deciding whether to trigger a "
    "VACUUM. The default is 0.2 (20% of table size)."
)
OTHER = "Autovacuum is a background process that automates VACUUM and ANALYZE commands."
OWN = "A table is vacuumed once its dead tuples exceed a threshold [1].\n"


def test_a_passage_rewrapped_under_a_label_of_the_models_own_is_a_copy() -> None:
    # The 1.5B's shape: a list item with the number and the page's title, then the passage
    # with its dashes, case and line breaks changed.
    reshaped = (
        "- [1] [Automatic Vacuuming]. - Autovacuum_vacuum_threshold (integer) — specifies the\n"
        "  minimum number of updated or deleted tuples needed to trigger a VACUUM in any one "
        "table [1]. The default is 50 tuples. This parameter can only be set in the "
        "postgresql.conf file or on the server command line; but the setting can be "
        "overridden for individual tables by changing table storage parameters.\n"
        "  - Autovacuum_vacuum_scale_factor (floating point) — specifies a fraction of the "
        "table size\n"
    )
    text = OWN + reshaped
    assert CopiedRun([OTHER, PASSAGE]).start(text) == len(OWN)


def test_findings_quoting_a_sentence_each_are_no_copy() -> None:
    findings = (
        "- autovacuum_vacuum_threshold specifies the minimum number of updated or deleted "
        "tuples needed to trigger a VACUUM in any one table [1].\n"
        "- The default is 50 tuples [1].\n"
        "- autovacuum_vacuum_scale_factor specifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM [1].\n"
        "- The default is 0.2 (20% of table size) [1].\n"
    )
    assert CopiedRun([PASSAGE]).start(OWN + findings) is None


def test_a_run_may_not_join_two_passages_nor_count_a_word_still_being_written() -> None:
    half = PASSAGE.split()
    first, second = " ".join(half[: len(half) // 2]), " ".join(half[len(half) // 2 :])
    joined = f"{second} {first}"  # every word in order, but across the two passages
    assert CopiedRun([second, first]).start(joined + "\n") is None
    # The passage up to the end of a full run's last word, which may still be growing.
    exactly = PASSAGE[: list(re.finditer(r"\w+", PASSAGE))[MIN_RUN_WORDS - 1].end()]
    run = CopiedRun([PASSAGE])
    assert run.start(exactly) is None
    assert run.start(exactly + " ") == 0  # the same watch, fed the grown reply
    assert CopiedRun([]).start(exactly + " ") is None


def test_the_watch_fed_a_growing_reply_finds_what_a_fresh_one_finds() -> None:
    text = OWN + "\n" + PASSAGE + "\n"
    fed = CopiedRun([PASSAGE])
    seen = [fed.start(text[:end]) for end in range(0, len(text), 24)]
    assert seen[0] is None and seen[-1] == CopiedRun([PASSAGE]).start(text) == len(OWN) + 1
    # A reply that is not the one fed so far (another call's) is read afresh.
    assert fed.start(PASSAGE + "\n") == 0


def test_findings_written_before_a_copy_on_its_line_stay_and_a_label_does_not() -> None:
    own = "A table is vacuumed once its dead tuples exceed a threshold [1]. "
    one_line = own + PASSAGE + "\n"
    assert CopiedRun([PASSAGE]).start(one_line) == len(own)
    labelled = "- [1] [Automatic Vacuuming]. " + PASSAGE + "\n"
    assert CopiedRun([PASSAGE]).start(OWN + labelled) == len(OWN)
