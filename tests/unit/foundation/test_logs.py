"""The log file keeps diagnostic detail and never a secret."""

from __future__ import annotations

import logging
from pathlib import Path

from engine.config import settings_from_mapping
from engine.logs import REDACTED, configure_logging, get_logger


def _configured(tmp_path: Path) -> Path:
    settings = settings_from_mapping(
        {
            "DATA_DIR": str(tmp_path),
            "OPENAI_API_KEY": "sk-configured-key-123",
            "EXA_API_KEY": "exa-abcdef",
        }
    )
    return configure_logging(settings)


def test_records_and_tracebacks_reach_the_file(tmp_path: Path) -> None:
    path = _configured(tmp_path)
    log = get_logger("unit")
    try:
        raise ValueError("boom in research unit")
    except ValueError:
        log.exception("research unit failed")
    logging.getLogger("deepresearch").handlers[0].flush()
    text = path.read_text()
    assert "research unit failed" in text
    assert "ValueError: boom in research unit" in text
    assert "Traceback" in text


def test_configured_secrets_and_key_shapes_are_redacted(tmp_path: Path) -> None:
    path = _configured(tmp_path)
    log = get_logger("provider")
    log.warning("auth failed with key %s", "sk-configured-key-123")
    log.warning("exa said: x-api-key: exa-abcdef")
    log.warning("header Authorization: Bearer abcdefghijklmnop")
    log.warning("some other sk-otherlookingkey9999 leaked")
    try:
        raise RuntimeError("request with api_key=sk-configured-key-123 failed")
    except RuntimeError:
        log.exception("call failed")
    text = path.read_text()
    for secret in (
        "sk-configured-key-123",
        "exa-abcdef",
        "abcdefghijklmnop",
        "sk-otherlookingkey9999",
    ):
        assert secret not in text
    assert text.count(REDACTED) >= 5


def test_configuring_twice_keeps_one_handler(tmp_path: Path) -> None:
    _configured(tmp_path)
    _configured(tmp_path)
    handlers = [
        h for h in logging.getLogger("deepresearch").handlers if getattr(h, "_deepresearch", False)
    ]
    assert len(handlers) == 1
