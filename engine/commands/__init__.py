"""Subcommands of the `deepresearch` command line, one module each.

Each module defines `register(subparsers)`, which adds its parser and sets `handler` to a
function taking the parsed arguments and returning the exit code.
"""
