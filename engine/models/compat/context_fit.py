"""Keep every request inside the server's context window, measured in the server's tokens.

Characters per token differ by tokenizer and text (English prose ~4, URLs and code ~2.5).
The estimator starts cautious and learns the ratio from the `prompt_tokens` each reply
reports, keeping the most token-dense ratio it has seen, so an estimate errs long, never
short. A request that would not fit with room for the reply has its longest middle
messages cut (head and tail kept); the system prompt and the last turn are never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, SystemMessage

from engine.messages import message_chars, message_text

INITIAL_CHARS_PER_TOKEN = 3.0
MIN_CHARS_PER_TOKEN = 2.0
# Chat templates add a few tokens per message (role markers, separators).
TOKENS_PER_MESSAGE = 8
SAFETY_TOKENS = 64
CUT_MARKER = "\n[… cut to fit the model's context window …]\n"


@dataclass
class TokenEstimator:
    """Characters-to-tokens, calibrated by what the server reports."""

    chars_per_token: float = INITIAL_CHARS_PER_TOKEN

    def tokens(self, messages: Sequence[BaseMessage], extra_chars: int = 0) -> int:
        chars = sum(message_chars(message) for message in messages) + extra_chars
        return int(chars / self.chars_per_token) + TOKENS_PER_MESSAGE * len(messages)

    def observe(self, chars: int, prompt_tokens: int) -> None:
        """Learn from one reply's reported prompt size (only ever towards caution)."""
        if prompt_tokens <= 0 or chars <= 0:
            return
        ratio = max(MIN_CHARS_PER_TOKEN, chars / prompt_tokens)
        self.chars_per_token = min(self.chars_per_token, ratio)


def _cut(text: str, keep: int) -> str:
    if keep <= len(CUT_MARKER) * 2 or len(text) <= keep:
        return text[: max(0, keep)]
    head = (keep - len(CUT_MARKER)) * 2 // 3
    tail = keep - len(CUT_MARKER) - head
    return text[:head] + CUT_MARKER + text[len(text) - tail :]


def fit_messages(
    messages: Sequence[BaseMessage],
    *,
    budget_tokens: int,
    estimator: TokenEstimator,
    extra_chars: int = 0,
) -> list[BaseMessage]:
    """`messages` cut until their estimate fits `budget_tokens` (the window minus the reply)."""
    fitted = list(messages)
    for _ in range(len(fitted) * 2 + 2):
        excess = estimator.tokens(fitted, extra_chars) - budget_tokens
        if excess <= 0:
            return fitted
        candidates = [
            index
            for index, message in enumerate(fitted)
            if index != len(fitted) - 1 and not isinstance(message, SystemMessage)
        ]
        if not candidates:
            candidates = [len(fitted) - 1]
        longest = max(candidates, key=lambda index: message_chars(fitted[index]))
        text = message_text(fitted[longest])
        if len(text) <= len(CUT_MARKER) * 2:
            break
        keep = max(0, len(text) - int((excess + SAFETY_TOKENS) * estimator.chars_per_token))
        fitted[longest] = fitted[longest].model_copy(update={"content": _cut(text, keep)})
    return fitted


def shrink(messages: Sequence[BaseMessage], factor: float, estimator: TokenEstimator) -> list:
    """The request cut to `factor` of its current estimate (after a context-length refusal)."""
    target = int(estimator.tokens(messages) * factor)
    return fit_messages(messages, budget_tokens=target, estimator=estimator)
