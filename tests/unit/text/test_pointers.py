"""Cross-references go from what is quoted as a finding: a pointer states nothing."""

from __future__ import annotations

import pytest

from engine.sourcing.extractive import sentences_of
from engine.sourcing.finding_text import finding_text
from engine.text.pointers import without_pointers


@pytest.mark.parametrize(
    "sentence",
    [
        # Seen in deep reports over the PostgreSQL pages on the bundled 1.5B.
        "For more information about automatic and manual vacuuming, see Section 25.1.",
        "For more information see Section 25.1.5.1.",
        "See ANALYZE for more details about its processing.",
        "Refer to Section 25.1.6 for more information.",
        "See also git-add(1) for a more user-friendly way to do some operations on the index.",
        "If this is not desired, see git-repack(1).",
        "These aspects are discussed in Section 30.1.",
        "This setting is described in detail below.",
    ],
)
def test_a_sentence_that_only_points_elsewhere_is_none(sentence: str) -> None:
    assert without_pointers(sentence) == ""


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        (
            "For many installations, it is sufficient to let vacuuming be performed by the "
            "autovacuum daemon, which is described in Section 25.1.6.",
            "For many installations, it is sufficient to let vacuuming be performed by the "
            "autovacuum daemon.",
        ),
        (
            "When cascading replication (see Section 27.2.7) is used, standby servers can also "
            "be senders.",
            "When cascading replication is used, standby servers can also be senders.",
        ),
        (
            "Autovacuum is enabled by default; see Section 20.10.",
            "Autovacuum is enabled by default.",
        ),
        (
            "In most cases the default works well, see Section 3.",
            "In most cases the default works well.",
        ),
        ("Git stores config in files (see git-config(1)).", "Git stores config in files."),
    ],
)
def test_a_pointing_clause_is_cut_from_a_sentence_that_states_something(
    sentence: str, kept: str
) -> None:
    assert without_pointers(sentence) == kept


@pytest.mark.parametrize(
    "sentence",
    [
        "You will see a warning when the threshold is crossed.",
        "To see the effect, run VACUUM VERBOSE on the table.",
        "As shown in the example above, the loop runs forever.",
        "Queues can be used to distribute workload between several concurrent tasks.",
        # Listed or shown in a manner, not in another part of the manual.
        "Entries are listed in alphabetical order by their name.",
        "The key is shown in bold in the output.",
        # Found in review: a place followed by more to say, "see" as "find out".
        "Some errors are listed below the table and must be fixed before upgrading.",
        "Its value is shown under Settings in the admin panel.",
        "See how the planner estimates costs by running EXPLAIN ANALYZE.",
        "For example, see if the table is bloated.",
    ],
)
def test_see_as_a_verb_of_the_sentence_is_no_pointer(sentence: str) -> None:
    assert without_pointers(sentence) == sentence


def test_quoted_sentences_and_findings_leave_pointers_out() -> None:
    passage = (
        "Autovacuum checks for tables that have had a large number of updated tuples. "
        "For more information about automatic and manual vacuuming, see Section 25.1. "
        "The daemon runs VACUUM on each table that needs it, which is described in Section 25.1.6."
    )
    # Quotes stay word for word: the pointer-only sentence goes, the other stays whole.
    assert sentences_of(passage) == [
        "Autovacuum checks for tables that have had a large number of updated tuples.",
        "The daemon runs VACUUM on each table that needs it, which is described in Section 25.1.6.",
    ]
    two = "See Section 25.1. Autovacuum runs every minute by default."
    assert finding_text(two, []) == "Autovacuum runs every minute by default."
    assert (
        finding_text("See Section 25.1 for the autovacuum settings.", ["Routine Vacuuming"]) == ""
    )
