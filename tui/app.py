"""Placeholder app module: replaced by the full Textual application."""

from __future__ import annotations


def run_app() -> int:
    from textual.app import App

    App().run()
    return 0
