"""Presentation: the words and formats a person reads, free of widgets and policy (counts and
durations, plain words for the engine's identifiers, what a failure says)."""
