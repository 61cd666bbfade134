"""The log file keeps diagnostic detail and never a secret."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from engine.config import settings_from_mapping
from engine.logs import REDACTED, RedactSecrets, configure_logging, get_logger


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


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://reader:pa%zzhunter2secret@127.0.0.1:1/db",  # a bad escape: libpq quotes it
        "postgresql://reader:hunter2 secret@127.0.0.1:1/db",  # a space: libpq quotes it
        "postgresql://reader:hunter2@secret1@127.0.0.1:1/db",  # an @: libpq splits it
    ],
)
async def test_a_mistyped_checkpoint_url_never_shows_its_password(
    tmp_path: Path,
    url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from engine import checkpoints
    from engine.store import postgres_checkpoints

    monkeypatch.setattr(postgres_checkpoints, "POSTGRES_CONNECT_SECONDS", 0.5)
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path), "CHECKPOINT_URL": url})
    caplog.set_level(logging.INFO)
    with pytest.raises(checkpoints.CheckpointStoreError) as raised:
        async with checkpoints.checkpointer(settings):
            pass
    message = str(raised.value)
    assert message.startswith("CHECKPOINT_URL:")
    printed = capsys.readouterr()
    logged = caplog.text
    assert "psycopg" in " ".join(record.name for record in caplog.records)  # it did log
    for shown in (message, logged, printed.out, printed.err):
        for part in ("hunter2", "secret", "zzhunter"):
            assert part not in shown, shown


def test_a_url_password_is_redacted_in_any_record() -> None:
    redact = RedactSecrets([]).redact
    assert redact("connect to postgresql://bob:s3cr3t@db.example/x failed") == (
        f"connect to postgresql://bob:{REDACTED}@db.example/x failed"
    )
    assert "p@ss" not in redact("dsn https://u:p@ss@host/")
