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


def _secrets_of(settings: Settings) -> list[str]:
    keys = (settings.openai_api_key, settings.exa_api_key)
    return [key.get_secret_value() for key in keys if key is not None]


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
    handler.addFilter(RedactSecrets(_secrets_of(settings)))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    # The log file is the only place these records go: not the terminal the app draws on.
    logger.propagate = False
    return path


def get_logger(name: str) -> logging.Logger:
    """A child of the engine's logger (`deepresearch.<name>`)."""
    return logging.getLogger(f"{LOGGER_NAME}.{name}")
