"""The command line: version, argument errors, and the doctor's report and exit codes."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine import doctor
from engine.cli import main
from engine.config import settings_from_mapping

ROOT = Path(__file__).resolve().parents[3]


class _Handler(BaseHTTPRequestHandler):
    status = 200
    delay = 0.0
    seen_headers: list[dict[str, str]] = []

    def do_GET(self) -> None:
        type(self).seen_headers.append(dict(self.headers))
        time.sleep(self.delay)
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"data": []}')

    def log_message(self, *args: object) -> None:
        return


def _serve(status: int = 200, delay: float = 0.0) -> Iterator[str]:
    handler = type("H", (_Handler,), {"status": status, "delay": delay, "seen_headers": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def live_endpoint() -> Iterator[str]:
    yield from _serve()


@pytest.fixture
def closed_port_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/v1"


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("deepresearch ")


def test_unknown_command_is_a_clear_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["frobnicate"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'frobnicate'" in err


def test_bad_setting_exits_2_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MAX_CONCURRENT_RESEARCH_UNITS", "lots")
    assert main(["doctor", "--no-probe"]) == 2
    assert "MAX_CONCURRENT_RESEARCH_UNITS='lots'" in capsys.readouterr().err


def test_doctor_offline_with_no_keys_can_run(tmp_path: Path) -> None:
    report = doctor.collect_report(settings_from_mapping({"DATA_DIR": str(tmp_path)}))
    text = report.render()
    assert report.can_run
    assert "offline extractive model" in text
    assert "OPENAI_API_KEY" in text and "disables:" in text
    assert "web search through Exa" in text
    assert "A research session can run." in text


def test_doctor_reports_unreachable_endpoints_and_fails(
    tmp_path: Path, closed_port_url: str
) -> None:
    settings = settings_from_mapping(
        {
            "DATA_DIR": str(tmp_path),
            "OPENAI_API_KEY": "sk-never-printed",
            "ORCHESTRATOR_BASE_URL": closed_port_url,
            "EXA_API_KEY": "exa-never-printed",
            "EXA_BASE_URL": closed_port_url.removesuffix("/v1"),
        }
    )
    started = time.monotonic()
    report = doctor.collect_report(settings)
    assert time.monotonic() - started < 3.0 * 2
    text = report.render()
    assert not report.can_run
    assert "unreachable" in text
    assert "sk-never-printed" not in text and "exa-never-printed" not in text
    assert "cannot run" in text


def test_doctor_a_server_answering_only_get_models_cannot_run(
    tmp_path: Path, live_endpoint: str
) -> None:
    # GET /models answers, but every chat request gets HTTP 501: reachable is not enough.
    settings = settings_from_mapping(
        {
            "DATA_DIR": str(tmp_path),
            "OPENAI_API_KEY": "sk-local",
            "ORCHESTRATOR_BASE_URL": live_endpoint + "/v1",
            "LLM_TIMEOUT_SECONDS": "5",
        }
    )
    report = doctor.collect_report(settings)
    assert len(report.endpoints) == 1, "roles sharing one base URL and model are probed once"
    [endpoint] = report.endpoints
    assert endpoint.reachable.status == "ok"
    assert "answers GET /models" in endpoint.reachable.detail
    assert endpoint.error.startswith("answered no chat request")
    assert not report.can_run
    assert "sk-local" not in report.render()


def test_doctor_times_out_a_hanging_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "PROBE_TIMEOUT_SECONDS", 0.3)
    for base in _serve(delay=1.5):
        settings = settings_from_mapping(
            {"DATA_DIR": str(tmp_path), "ORCHESTRATOR_BASE_URL": base + "/v1"}
        )
        report = doctor.collect_report(settings)
        assert not report.can_run
        assert "no answer within 0.3 s" in report.render()


def test_doctor_flags_a_rejected_key(tmp_path: Path) -> None:
    for base in _serve(status=401):
        settings = settings_from_mapping(
            {"DATA_DIR": str(tmp_path), "OPENAI_API_KEY": "bad", "ORCHESTRATOR_BASE_URL": base}
        )
        report = doctor.collect_report(settings)
        assert not report.can_run
        assert "rejects the key" in report.render()


def test_doctor_exa_without_key_cannot_run(tmp_path: Path) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path), "SEARCH_PROVIDER": "exa"})
    report = doctor.collect_report(settings, probe=False)
    assert not report.can_run
    assert "SEARCH_PROVIDER=exa needs EXA_API_KEY" in report.render()


def test_doctor_empty_documents_folder_cannot_run(tmp_path: Path) -> None:
    empty = tmp_path / "docs"
    empty.mkdir()
    settings = settings_from_mapping({"DATA_DIR": str(tmp_path), "DOCUMENTS_PATH": str(empty)})
    report = doctor.collect_report(settings, probe=False)
    assert not report.can_run
    assert "no documents" in report.render()


def test_doctor_command_exit_code_in_a_subprocess(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DATA_DIR": str(tmp_path / "d")}
    ok = subprocess.run(
        [sys.executable, "-m", "tui.cli", "doctor"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "settings file: none found" in ok.stdout
