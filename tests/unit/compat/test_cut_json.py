"""A structured reply ended before the model finished it is read as far as it is complete."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from engine.models.compat.json_text import array_objects_closed, closed_cut_object
from engine.models.compat.reply_watch import STOPPED_EARLY
from engine.models.compat.structured import json_from_reply

CLAIMS = [
    {"text": "The default is 50 tuples, or 0.2 [1].", "source_ids": [1, 2]},
    {"text": "Set it to {} to disable it.", "source_ids": [3]},
]
WHOLE = json.dumps({"claims": CLAIMS})


def test_a_cut_object_keeps_every_complete_value_and_drops_the_one_cut():
    cut = WHOLE[:-2] + ', {"text": "The thresh'
    assert closed_cut_object(cut) == {"claims": CLAIMS}
    # Cut inside the second claim's list of ids: only the first claim was complete.
    inside = WHOLE[: WHOLE.index("[3]") + 1]
    assert closed_cut_object(inside) == {"claims": CLAIMS[:1]}
    # A code fence before it, and brackets inside strings, change nothing.
    assert closed_cut_object("```json\n" + cut) == {"claims": CLAIMS}
    # Values before the cut stay; a track cut before its queries ended is no track.
    plan = '{"scope": "autovacuum", "tracks": [{"title": "Thresholds", "queries": ["a", "b'
    assert closed_cut_object(plan) == {"scope": "autovacuum"}


@pytest.mark.parametrize(
    "text",
    ["no JSON here", '{"text": "never closed', "", '{"a": 1} and {"b": '],
)
def test_a_text_with_no_complete_value_is_none(text: str):
    assert closed_cut_object(text) is None


def test_objects_closed_inside_a_list_are_counted_as_they_stream():
    assert array_objects_closed(WHOLE) == 2
    assert array_objects_closed(WHOLE[: WHOLE.index("}") + 1]) == 1
    assert array_objects_closed(WHOLE[: WHOLE.index("}")]) == 0
    # A brace inside a sentence is text, not an object.
    assert array_objects_closed('{"claims": [{"text": "use {} or [x]}"') == 0
    assert array_objects_closed("prose, not JSON {}") == 0


@pytest.mark.parametrize("reason", ["length", STOPPED_EARLY])
def test_a_reply_cut_at_its_cap_or_stopped_is_read_up_to_its_last_complete_value(reason: str):
    reply = AIMessage(
        content=WHOLE[:-2] + ', {"text": "cut', response_metadata={"finish_reason": reason}
    )
    assert json_from_reply(reply, "json_object") == {"claims": CLAIMS}


def test_a_reply_the_model_finished_badly_is_still_an_error():
    """A finished reply with broken JSON is the model's mistake: asked again, not patched."""
    reply = AIMessage(
        content=WHOLE[:-2] + ', {"text": "cut', response_metadata={"finish_reason": "stop"}
    )
    with pytest.raises(ValueError):
        json_from_reply(reply, "json_object")
    nothing = AIMessage(content='{"claims": [{"te', response_metadata={"finish_reason": "length"})
    with pytest.raises(ValueError, match="before its first complete value"):
        json_from_reply(nothing, "json_object")
