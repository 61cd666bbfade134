"""The tokens one model reply spent, as its usage metadata reports them."""

from __future__ import annotations

from langchain_core.outputs import LLMResult


def tokens_used(response: LLMResult) -> tuple[int, int]:
    """(input tokens, output tokens) summed over the reply's generations; 0 where unreported."""
    spent_in = spent_out = 0
    for generations in response.generations:
        for generation in generations:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                spent_in += int(usage.get("input_tokens", 0))
                spent_out += int(usage.get("output_tokens", 0))
    return spent_in, spent_out


# Where a reply names the model that answered it (a fallback's name, not the role's).
ANSWERED_BY = "answered_by"


def answering_model(response: LLMResult) -> str | None:
    """The configured name of the model that answered, when a fallback did."""
    for generations in response.generations:
        for generation in generations:
            metadata = getattr(getattr(generation, "message", None), "response_metadata", None)
            if metadata and metadata.get(ANSWERED_BY):
                return str(metadata[ANSWERED_BY])
    return None
