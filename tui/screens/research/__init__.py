"""The research screen, split by responsibility (see `base`)."""

from tui.screens.research.screen import PANE_IDS, ResearchScreen

__all__ = ["PANE_IDS", "ResearchScreen"]
