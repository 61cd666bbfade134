"""What a person is told when the engine stops unexpectedly: specific, and never a secret.

Exception text can carry URLs, internal host names, provider messages or keys, so it is shown
only for error types whose messages are written for people (settings errors name the variable
and hide secrets). Everything else is reported by its kind.
"""

from __future__ import annotations

_KNOWN = {
    "ModuleNotFoundError": "a part of the research engine is not installed",
    "ImportError": "a part of the research engine could not be loaded",
    "TimeoutError": "the engine timed out",
    "ConnectionError": "a connection to a model or search endpoint failed",
    "PermissionError": "the data directory is not writable",
    "OSError": "a file or network operation failed",
}


def describe_failure(error: BaseException) -> str:
    # Imported here: the app's first frame must not wait for the settings module.
    from engine.config import SettingsError

    if isinstance(error, SettingsError):
        return str(error)
    for kind in type(error).__mro__:
        if kind.__name__ in _KNOWN:
            return f"{_KNOWN[kind.__name__]} ({type(error).__name__})"
    return f"the engine stopped unexpectedly ({type(error).__name__})"
