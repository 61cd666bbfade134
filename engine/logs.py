"""The engine's log file: full detail for diagnosis, with every secret redacted.

Front ends show sanitized one-line errors; the log under `DATA_DIR/logs/` keeps the exception
types and tracebacks that explain them. A filter scrubs the configured keys and anything
shaped like a bearer token or an API key before a record is written, so a key that ends up in
an exception message still never reaches the disk.
"""

from __future__ import annotations

import logging
import re
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from engine.config import Settings
from engine.data_dir import prepare_data_dir, private_dir, private_file

LOGGER_NAME = "deepresearch"
LOG_FILE_NAME = "deepresearch.log"
REDACTED = "[redacted]"
_TOKEN_SHAPES = re.compile(
    r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"
    # A URL's password (`scheme://user:password@host`), up to the last `@` of the URL.
    r"|([a-z][a-z0-9+.-]*://[^\s:/@\"']*:)[^\s\"']+(?=@)"
    r"|\bsk-[A-Za-z0-9_-]{8,}"
    r"|(x-api-key['\"]?\s*[:=]\s*['\"]?)[A-Za-z0-9._-]{8,}"
    r"|(api[_-]?key['\"]?\s*[:=]\s*['\"]?)[A-Za-z0-9._-]{8,}"
)


def _scrub_shapes(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        prefix = next((group for group in match.groups() if group), "")
        return f"{prefix}{REDACTED}"

    return _TOKEN_SHAPES.sub(replace, text)


class RedactSecrets(logging.Filter):
    """Replaces known secret values and key-shaped strings in the rendered record."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self._secrets = [secret for secret in secrets if len(secret) >= 4]

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return _scrub_shapes(text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg = self.redact(message)
        record.args = None
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        record.exc_info = None
        return True


class PrivateRotatingFileHandler(RotatingFileHandler):
    """A rotating log whose every file, the first and each one after a rollover, is 0600."""

    def _open(self) -> Any:
        private_file(Path(self.baseFilename))
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        # A log that cannot be written (a full disk) is lost quietly: the logging module's
        # default prints a traceback to the terminal the app draws on, once per record.
        return


def connection_secrets(url: str) -> list[str]:
    """What of a connection URL is secret: the URL itself and its password, as written and
    decoded. An `@` inside a password is read differently by different parsers (libpq ends
    the password at the first one): each piece between `@`s counts as secret too."""
    from urllib.parse import unquote, urlsplit

    try:
        password = urlsplit(url).password or ""
    except ValueError:
        password = ""
    if not password:
        userinfo = url.partition("://")[2].rpartition("@")[0]
        password = userinfo.partition(":")[2]
    pieces = password.split("@") if "@" in password else []
    return [url, password, unquote(password), *pieces]


def secrets_of(settings: Settings) -> list[str]:
    """Every secret value the settings hold: keys, the API token, the checkpoint URL's."""
    keys = (settings.openai_api_key, settings.exa_api_key, settings.api_token)
    values = [key.get_secret_value() for key in keys if key is not None]
    if settings.checkpoint_url is not None:
        values += connection_secrets(settings.checkpoint_url.get_secret_value())
    # Longest first, so a secret that contains another is replaced whole.
    return sorted({value for value in values if value}, key=len, reverse=True)


# Libraries that log what they were given to connect with: psycopg_pool writes each failed
# attempt with libpq's message, which may quote the connection string, password and all.
LIBRARY_LOGGERS = ("psycopg", "psycopg.pool")


def guard_library_logs(settings: Settings) -> None:
    """Redact the settings' secrets from whatever the libraries' loggers write, wherever
    their records go (the terminal included); safe to call again."""
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, RedactSecrets)]:
            logger.removeFilter(old)
        logger.addFilter(RedactSecrets(secrets_of(settings)))


def configure_logging(settings: Settings) -> Path:
    """Send the engine's log records to `DATA_DIR/logs/deepresearch.log`; safe to call again."""
    prepare_data_dir(settings)
    folder = private_dir(settings.data_dir / "logs")
    path = folder / LOG_FILE_NAME
    logger = logging.getLogger(LOGGER_NAME)
    for handler in list(logger.handlers):
        if getattr(handler, "_deepresearch", False):
            logger.removeHandler(handler)
            handler.close()
    handler = PrivateRotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler._deepresearch = True  # type: ignore[attr-defined]
    handler.addFilter(RedactSecrets(secrets_of(settings)))
    guard_library_logs(settings)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # The log file is the only place these records go: not the terminal the app draws on.
    logger.propagate = False
    return path


def get_logger(name: str) -> logging.Logger:
    """A child of the engine's logger (`deepresearch.<name>`)."""
    return logging.getLogger(f"{LOGGER_NAME}.{name}")
