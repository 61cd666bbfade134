"""Offering a model server found on this machine, and taking it when the person says so.

Taking it writes the same `.env` lines the settings screen's setup form writes (owner-only,
other lines kept), then the settings are read again: new sessions use the server.
"""

from __future__ import annotations

from pathlib import Path

from tui.host.env_file import write_env_file
from tui.link.backend import Backend, LocalModelOffer

USE_KEY = "F4"


def offer_message(offer: LocalModelOffer, others: int) -> str:
    more = f" (and {others} more server{'s' if others != 1 else ''}: see F3)" if others else ""
    return (
        f"Found a local model server at {offer.description}{more}. Nothing was sent to it. "
        f"Press {USE_KEY} to use {offer.model} for new sessions."
    )


def take_offer(backend: Backend, offer: LocalModelOffer) -> Path:
    """Save the offer's settings to the settings file and reload them; the file written.
    Raises OSError when the file cannot be written."""
    path = write_env_file(backend.env_file(), offer.settings)
    backend.reload_settings()
    return path


def taken_message(offer: LocalModelOffer, path: Path) -> str:
    chosen = ", ".join(f"{name}={value}" for name, value in offer.settings.items())
    return (
        f"Saved {chosen} to {path}. New sessions use {offer.model}; "
        "Settings (F3), then F5, checks what it can do."
    )
