"""The one error type search raises; its message is safe to show the user and the model."""

from __future__ import annotations


class SearchError(Exception):
    """A search failed. The message is one clear sentence with no secrets or internal hosts."""
