"""`langgraph dev` serving docs/deploy/langgraph.json from the repository root, offline.

LangGraph's own in-memory server, started the way its documentation says (a subprocess of the
`langgraph` command, working directory the repository root), with the blocking-call detector
on. The environment is the offline one of the end-to-end tests: the offline extractive model
and local search over the sample corpus, in a data folder whose index is already built.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.helpers.sample_index import seed_sample_index

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "docs/deploy/langgraph.json"
SAMPLES = ROOT / "docs" / "samples"
START_SECONDS = 180.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def offline_environment(data_dir: Path, env_file: Path) -> dict[str, str]:
    """The server's environment: the caller's, with the offline model and corpus."""
    env = dict(os.environ)
    env.update(
        {
            "ORCHESTRATOR_MODEL": "offline",
            "SEARCH_PROVIDER": "local",
            "DOCUMENTS_PATH": str(SAMPLES),
            "DATA_DIR": str(seed_sample_index(data_dir)),
            "DEEPRESEARCH_ENV_FILE": str(env_file),
            # Nothing leaves the machine: no version check, no analytics, no tracing.
            "LANGGRAPH_NO_VERSION_CHECK": "true",
            "LANGGRAPH_CLI_NO_ANALYTICS": "1",
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
        }
    )
    for name in ("OPENAI_API_KEY", "EXA_API_KEY", "OPENAI_BASE_URL", "ORCHESTRATOR_BASE_URL"):
        env.pop(name, None)
    return env


def _wait_until_ok(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"langgraph dev exited ({process.returncode}):\n{_tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"langgraph dev did not answer /ok in {START_SECONDS:.0f} s:\n{_tail(log)}")


def _tail(log: Path, lines: int = 60) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@contextlib.contextmanager
def langgraph_dev(
    workdir: Path | None = None, *, jobs_per_worker: int | None = None
) -> Iterator[str]:
    """The base URL of a running `langgraph dev`; its log is `workdir/langgraph-dev.log`."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lgdev-")))
        env_file = workdir / "empty.env"
        env_file.write_text("")
        env = offline_environment(workdir / "data", env_file)
        port = free_port()
        command = [
            str(Path(sys.executable).parent / "langgraph"),
            "dev",
            "--config",
            CONFIG,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
        ]
        if jobs_per_worker is not None:
            command += ["--n-jobs-per-worker", str(jobs_per_worker)]
        log = workdir / "langgraph-dev.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_ok(url, process, log)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def server_log(workdir: Path) -> str:
    return _tail(workdir / "langgraph-dev.log", 200)
