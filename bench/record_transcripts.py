"""Re-record the model transcripts the tests replay, against a real OpenAI-compatible server.

    # first start a model server (docs/local-models.md): llama.cpp, vLLM, Ollama, ...
    uv run python bench/record_transcripts.py [--upstream http://127.0.0.1:8081/v1] \\
        [--only NAME ...] [--out-dir DIR] [--timeout SECONDS] [--upstream-concurrency N] [--list]

For each scenario in SCENARIOS (below) the script starts a recording proxy in front of the
upstream (`tests/fixtures/recording_proxy.py`) and runs `deepresearch run ARGS... --out ...
--events ...` as a subprocess, with the engine pointed at the proxy:

    ORCHESTRATOR_BASE_URL=<proxy>/v1  ORCHESTRATOR_MODEL=local  OPENAI_API_KEY=sk-local
    MODEL_MAX_INPUT_TOKENS=16384  SEARCH_PROVIDER=local  DATA_DIR=<fresh temporary folder>
    LLM_TIMEOUT_SECONDS=900  LLM_MAX_RETRIES=1

plus the scenario's own `env` (which wins). Every other engine setting is removed from the
child's environment and `DEEPRESEARCH_ENV_FILE` names an empty file, so a developer's `.env`
cannot leak into a recording; the documents folder is the bundled `docs/samples/` corpus unless a
scenario names another (a path relative to the project, which the replay resolves the same way).
Every chat-completions exchange lands in `tests/fixtures/transcripts/<name>.jsonl`, which is
overwritten when the run ends (a run interrupted with Ctrl-C leaves the old file in place and
the partial recording beside it as `<name>.jsonl.partial`). The child's progress lines go to
stderr as they happen; a table follows: scenario, exit code, wall seconds, requests recorded.

The proxy sends one chat completion upstream at a time (`--upstream-concurrency`, default 1):
llama-cpp-python's server runs one request at a time anyway and cuts a running stream short
when another request arrives, which would truncate the answers of parallel researchers. For
the same reason, nothing else should use the server while a recording runs; the table's
`broken` column counts exchanges that failed (HTTP 4xx/5xx) or whose stream was cut short.

The upstream must answer `GET <upstream>/models` first; otherwise the script exits with code 2
and says how to start the local model. Runs are slow on a CPU model (~28 tokens/s: a quick
run takes about a minute, a deep run up to ten); `--only` records one scenario at a time.

A scenario is `{"name", "args" (for `deepresearch run`), "env" (extra settings)}`; add one to
SCENARIOS and re-run with `--only` its name. Exit code: 0 when every run exited 0, else 1.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.fixtures.recording_proxy import RecordingProxy  # noqa: E402
from tests.fixtures.transcripts import TRANSCRIPTS_DIR, header_line  # noqa: E402

DEFAULT_UPSTREAM = "http://127.0.0.1:8081/v1"

SCENARIOS: list[dict[str, Any]] = [
    {
        "name": "quick_asyncio_cancel",
        "args": [
            "How do you cancel an asyncio task and what exception does the task see?",
            "--mode",
            "quick",
            "--yes",
        ],
        "env": {},
    },
    {
        # The answer is one number on one page: the citation must survive the model's format.
        "name": "quick_lru_cache_default",
        "args": ["What is the default maxsize of functools.lru_cache?", "--mode", "quick", "--yes"],
        "env": {},
    },
    {
        # Nothing in the corpus answers it: the model's memory must not pass as research.
        "name": "quick_off_corpus",
        "args": ["Who won the 1998 FIFA World Cup final?", "--mode", "quick", "--yes"],
        "env": {},
    },
    {
        # Over pages the rules were never written for: the model wrote "… is [5]." where the
        # version should be, and the answer becomes the sources' sentences, quoted.
        "name": "quick_marker_as_fact",
        "args": [
            "What is the minimum Node.js version supported by undici 7.x?",
            "--mode",
            "quick",
            "--yes",
        ],
        "env": {"DOCUMENTS_PATH": "tests/fixtures/eval/undici_pages"},
    },
    {
        # Over the Apache httpd manual: the model began copying a search result, header line
        # first; the reply is stopped there and asked for once more.
        "name": "quick_copy_stopped",
        "args": [
            "What does httpd do when a client fails to deliver its request headers within "
            "the configured read timeout?",
            "--mode",
            "quick",
            "--yes",
        ],
        "env": {"DOCUMENTS_PATH": "tests/fixtures/eval/httpd_pages"},
    },
    {
        "name": "deep_capped",
        "args": [
            "Compare asyncio tasks and threads for I/O-bound work",
            "--mode",
            "deep",
            "--yes",
        ],
        "env": {
            "MAX_RESEARCHER_ITERATIONS": "2",
            "MAX_CONCURRENT_RESEARCH_UNITS": "2",
            "MAX_REACT_TOOL_CALLS": "6",
            "MIN_EVIDENCE_RECORDS": "2",
            "MIN_SOURCE_DOMAINS": "1",
            # One review and revision: the critic's findings as a real writer reads them.
            "CRITIC_ROUNDS": "1",
            # The support judge's calls recorded whatever its calibration would say.
            "GROUNDING_JUDGE": "on",
        },
    },
]

# Settings every recording shares (a scenario's env overrides them).
BASE_ENV: dict[str, str] = {
    "ORCHESTRATOR_MODEL": "local",
    "OPENAI_API_KEY": "sk-local",
    "MODEL_MAX_INPUT_TOKENS": "16384",
    "SEARCH_PROVIDER": "local",
    "LLM_TIMEOUT_SECONDS": "900",
    "LLM_MAX_RETRIES": "1",
}


@dataclass
class Outcome:
    name: str
    exit_code: int | None
    seconds: float
    requests: int
    broken: int
    cassette: Path


def check_upstream(upstream: str) -> str:
    """The upstream's first model id; exits with code 2 when it does not answer."""
    url = f"{upstream.rstrip('/')}/models"
    try:
        response = httpx.get(url, timeout=10)
        response.raise_for_status()
        models = response.json().get("data") or []
    except (httpx.HTTPError, ValueError) as exc:
        print(
            f"record_transcripts: the upstream does not answer GET {url} ({exc}).\n"
            "Start a model server (docs/local-models.md; the default upstream is "
            f"{DEFAULT_UPSTREAM}) or pass --upstream URL of a running OpenAI-compatible server.",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    return str(models[0].get("id")) if models and isinstance(models[0], dict) else "unknown"


def deepresearch_command() -> list[str]:
    """`deepresearch` from this environment (the console script, else the module)."""
    script = Path(sys.executable).parent / "deepresearch"
    if script.exists():
        return [str(script)]
    found = shutil.which("deepresearch")
    return [found] if found else [sys.executable, "-m", "tui.cli"]


def child_environment(proxy_url: str, data_dir: Path, env_file: Path, extra: dict[str, str]):
    from engine.config import Settings

    env = dict(os.environ)
    for field in Settings.model_fields:  # no stray engine settings from the shell
        env.pop(field.upper(), None)
    env.update(BASE_ENV)
    env.update(
        {
            "ORCHESTRATOR_BASE_URL": proxy_url,
            "DATA_DIR": str(data_dir),
            "DEEPRESEARCH_ENV_FILE": str(env_file),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update({key: str(value) for key, value in extra.items()})
    return env


def record(
    scenario: dict[str, Any],
    upstream: str,
    model_id: str,
    out_dir: Path,
    timeout: float,
    concurrency: int,
) -> Outcome:
    name = scenario["name"]
    args = [str(arg) for arg in scenario.get("args", [])]
    extra = {key: str(value) for key, value in (scenario.get("env") or {}).items()}
    cassette = out_dir / f"{name}.jsonl"
    partial = cassette.with_name(cassette.name + ".partial")
    command_text = shlex.join(["deepresearch", "run", *args])
    header = header_line(
        name,
        model=model_id,
        base_url=upstream,
        command=command_text,
        env={**BASE_ENV, **extra},
    )
    print(f"\n== {name}: {command_text}", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix=f"record-{name}-") as tmp:
        work = Path(tmp)
        env_file = work / "empty.env"
        env_file.write_text("", encoding="utf-8")
        command = [
            *deepresearch_command(),
            "run",
            *args,
            "--out",
            str(work / "report.md"),
            "--events",
            str(work / "events.jsonl"),
        ]
        with RecordingProxy(
            upstream, partial, header=header, max_concurrent_upstream=concurrency or None
        ) as proxy:
            env = child_environment(proxy.base_url, work / "data", env_file, extra)
            started = time.monotonic()
            try:
                completed = subprocess.run(
                    command,
                    cwd=ROOT,
                    env=env,
                    timeout=timeout,
                    stdout=subprocess.PIPE,
                    text=True,
                    check=False,
                )
                exit_code: int | None = completed.returncode
                if completed.stdout.strip():
                    print(completed.stdout.strip(), file=sys.stderr)
            except subprocess.TimeoutExpired:
                print(f"{name}: timed out after {timeout:.0f} s", file=sys.stderr)
                exit_code = None
            seconds = time.monotonic() - started
            requests = proxy.recorded
            broken = sum(1 for e in proxy.exchanges if e.status >= 400 or e.error)
            others = [f"{m} {p}" for m, p in proxy.forwarded if not p.endswith("/completions")]
            if others:
                print(f"{name}: also forwarded {', '.join(others)}", file=sys.stderr)
        report = work / "report.md"
        if report.exists():
            print(
                f"-- report ({len(report.read_text(encoding='utf-8'))} chars) --", file=sys.stderr
            )
    partial.replace(cassette)
    return Outcome(name, exit_code, seconds, requests, broken, cassette)


def print_table(outcomes: list[Outcome]) -> None:
    rows = [("scenario", "exit", "wall s", "requests", "broken", "cassette")]
    for o in outcomes:
        exit_text = "timeout" if o.exit_code is None else str(o.exit_code)
        try:
            where = str(o.cassette.relative_to(ROOT))
        except ValueError:
            where = str(o.cassette)
        rows.append((o.name, exit_text, f"{o.seconds:.1f}", str(o.requests), str(o.broken), where))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if index == 0:
            print("  ".join("-" * w for w in widths))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--upstream",
        default=DEFAULT_UPSTREAM,
        help=f"OpenAI-compatible base URL (default {DEFAULT_UPSTREAM})",
    )
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="record only this scenario (repeatable)"
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=TRANSCRIPTS_DIR,
        help="where cassettes go (default tests/fixtures/transcripts)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="per-scenario time limit in seconds (default 1800)",
    )
    parser.add_argument(
        "--upstream-concurrency",
        type=int,
        default=1,
        metavar="N",
        help="chat completions sent upstream at once (default 1; 0 = no limit)",
    )
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)

    names = [scenario["name"] for scenario in SCENARIOS]
    if args.list:
        for scenario in SCENARIOS:
            print(f"{scenario['name']}: deepresearch run {shlex.join(scenario['args'])}")
        return 0
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        print(
            f"record_transcripts: unknown scenario {', '.join(unknown)}; known: {', '.join(names)}",
            file=sys.stderr,
        )
        return 2
    chosen = [s for s in SCENARIOS if not args.only or s["name"] in args.only]
    model_id = check_upstream(args.upstream)
    print(f"upstream {args.upstream} serves {model_id}", file=sys.stderr)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    outcomes = [
        record(
            scenario,
            args.upstream,
            model_id,
            args.out_dir,
            args.timeout,
            args.upstream_concurrency,
        )
        for scenario in chosen
    ]
    print()
    print_table(outcomes)
    return 0 if all(o.exit_code == 0 for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
