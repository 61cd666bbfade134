"""Widgets of the research screen, one per module."""
