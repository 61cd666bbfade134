"""Talking to the engine: the backend protocol and its real implementation, the link that runs
driver calls in workers, the bridge that turns engine events into messages, and the filter that
drops messages of a session the person has left.

Screens and widgets reach the engine's runtime only through here (an import-linter contract).
Nothing is imported on package import: the engine loads after the first frame.
"""
