"""Screens of the app, each with its own stylesheet next to it."""
