"""Our quick path against the simplest alternative, on one question set and one endpoint.

    uv run python bench/quick_vs_rag.py QUESTIONS.jsonl --documents DIR
                                        [--systems quick,rag] [--limit N] [--rows]
                                        [--run-timeout SECONDS] [--keep DIR]

`QUESTIONS.jsonl` is an eval set (docs/evals.md: each line a question, the facts a correct
answer states as regular expressions, the page that states them). Both systems search the
same local index of `--documents` (built once, before any timing) and are scored the same
way, on the same prose, in the same run:

- `quick`: `deepresearch run --mode quick --yes`, in-process through the headless driver,
  with the model the settings configure (environment, then `.env`; `local-llm env`).
- `rag`: retrieve-then-answer, the script a user would write in twenty lines: BM25 top 5 of
  the same index for the question as asked, one chat completion ("answer from these numbered
  passages, cite them"), the `[n]` it writes mapped to the passages' documents.

Questions alternate between the systems, so a machine that slows down during the run slows
both. Columns: fact in the answer (every expected fact's pattern found in the answer's
prose), right source cited (a cited source is the expected page), median and p90 wall time,
prompt and completion tokens per question. Tokens are counted the same way for both: every
chat request each system sent (the engine's are captured at its transport) and every reply,
counted by the endpoint's own tokenizer where it offers one (llama-cpp-python's
`/extras/tokenize/count`; each message's text plus a fixed 4 tokens of chat template), else
as each reports them (the engine's metering, which estimates when a streaming server reports
no usage, and the server's usage for `rag`); the table says which. The offline model has no
endpoint, so it runs `quick` only.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.config import Settings, load_settings  # noqa: E402
from engine.evals.dataset import EvalQuestion, load_dataset  # noqa: E402

SYSTEMS = ("quick", "rag")
RAG_PASSAGES = 5
RAG_MAX_TOKENS = 600
RAG_SYSTEM = (
    "Answer the question from the numbered passages. Cite the passage each fact comes "
    "from with its number in square brackets, like [1]. If the passages do not answer it, "
    "say so."
)
_MARKER = re.compile(r"\[(\d+)\]")


TEMPLATE_TOKENS_PER_MESSAGE = 4


@dataclass
class Exchange:
    """One chat request as sent, and the text of its reply."""

    messages: list[str]
    reply: str


@dataclass
class Outcome:
    system: str
    question: EvalQuestion
    answer: str = ""
    cited: list[str] = field(default_factory=list)
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str = ""
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def fact(self) -> bool:
        return bool(self.question.facts) and all(
            pattern.search(self.answer) for pattern in self.question.facts
        )

    @property
    def right_source(self) -> bool:
        from engine.evals.score import source_matches

        return any(
            source_matches(expected, cited)
            for expected in self.question.sources
            for cited in self.cited
        )


# ---- the quick path -----------------------------------------------------------------------


async def run_quick(
    question: EvalQuestion, settings_env: dict[str, str], run_dir: Path, timeout: float
) -> Outcome:
    from engine.commands.run import run_headless
    from engine.evals.score import score_session
    from engine.events import parse_event

    settings = load_settings({**os.environ, **settings_env, "DATA_DIR": str(run_dir)})
    events_path = run_dir / "events.jsonl"
    args = argparse.Namespace(
        question=question.question,
        yes=True,
        answer=None,
        plan=None,
        out=None,
        events=events_path,
        append=False,
        resume=None,
        mode="quick",
    )
    outcome = Outcome("quick", question)
    started = time.perf_counter()
    try:
        with _captured(outcome.exchanges):
            await asyncio.wait_for(
                run_headless(settings, args, stderr=io.StringIO(), stdout=io.StringIO()),
                timeout=timeout or None,
            )
    except TimeoutError:
        outcome.error = f"stopped after {timeout:g} s"
    except Exception as exc:  # a row of the table, not a crash of the whole run
        outcome.error = type(exc).__name__
    outcome.seconds = time.perf_counter() - started
    lines = events_path.read_text(encoding="utf-8").splitlines() if events_path.exists() else []
    events = [parse_event(line) for line in lines if line.strip()]
    scored = score_session(question, events, outcome.seconds, outcome.error)
    outcome.answer = _prose(scored.report)
    outcome.cited = scored.cited_sources
    outcome.prompt_tokens = scored.input_tokens
    outcome.completion_tokens = scored.output_tokens
    return outcome


@contextmanager
def _captured(into: list[Exchange]) -> Iterator[None]:
    """Every chat request the engine streams, with its reply, appended to `into`."""
    from engine.messages import message_text
    from engine.models.compat.transport import Transport

    original = Transport._stream

    async def capturing(self: Any, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        reply = await original(self, messages, *args, **kwargs)
        into.append(Exchange([message_text(m) for m in messages], message_text(reply)))
        return reply

    Transport._stream = capturing  # type: ignore[method-assign]
    try:
        yield
    finally:
        Transport._stream = original  # type: ignore[method-assign]


def _prose(report: str) -> str:
    from engine.grounding.claims import prose_line_count

    return "\n".join(report.split("\n")[: prose_line_count(report)])


# ---- retrieve-then-answer -------------------------------------------------------------------


def rag_messages(question: str, hits: list[Any]) -> list[dict[str, str]]:
    passages = "\n\n".join(
        f"[{number}] {hit.title}\n{' '.join(hit.passage.split())}"
        for number, hit in enumerate(hits, start=1)
    )
    return [
        {"role": "system", "content": RAG_SYSTEM},
        {"role": "user", "content": f"Passages:\n\n{passages}\n\nQuestion: {question}"},
    ]


def cited_documents(answer: str, hits: list[Any]) -> list[str]:
    numbers = {int(number) for number in _MARKER.findall(answer)}
    return [hits[n - 1].document_key for n in sorted(numbers) if 1 <= n <= len(hits)]


async def run_rag(
    question: EvalQuestion, settings: Settings, index: Any, timeout: float
) -> Outcome:
    import httpx

    role = settings.role_model("writer")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    outcome = Outcome("rag", question)
    started = time.perf_counter()
    hits = index.search(question.question, RAG_PASSAGES)
    messages = rag_messages(question.question, hits)
    body: dict[str, Any] = {
        "model": role.model,
        "messages": messages,
        "max_tokens": RAG_MAX_TOKENS,
        "temperature": 0,
    }
    base = (role.base_url or "https://api.openai.com/v1").rstrip("/")
    try:
        async with httpx.AsyncClient(timeout=timeout or None) as client:
            response = await client.post(
                f"{base}/chat/completions",
                json=body,
                headers={"Authorization": f"Bearer {key}"} if key else {},
            )
            response.raise_for_status()
            data = response.json()
        outcome.answer = str(data["choices"][0]["message"].get("content") or "")
        outcome.exchanges.append(Exchange([m["content"] for m in messages], outcome.answer))
        usage = data.get("usage") or {}
        outcome.prompt_tokens = int(usage.get("prompt_tokens") or 0)
        outcome.completion_tokens = int(usage.get("completion_tokens") or 0)
    except (httpx.HTTPError, KeyError, ValueError) as exc:
        outcome.error = type(exc).__name__
    outcome.seconds = time.perf_counter() - started
    outcome.cited = cited_documents(outcome.answer, hits)
    return outcome


# ---- counting tokens alike -----------------------------------------------------------------


async def tokenizer_counts(settings: Settings, outcomes: list[Outcome]) -> bool:
    """Recount every outcome's tokens with the endpoint's tokenizer; False when it has none."""
    import httpx

    role = settings.role_model("writer")
    base = (role.base_url or "").rstrip("/")
    if not base:
        return False
    root = base.removesuffix("/v1")

    async def count(client: httpx.AsyncClient, text: str) -> int:
        response = await client.post(
            f"{root}/extras/tokenize/count", json={"input": text, "model": role.model}
        )
        response.raise_for_status()
        return int(response.json()["count"])

    try:
        async with httpx.AsyncClient(timeout=30) as client:
            await count(client, "probe")
            for outcome in outcomes:
                prompt = completion = 0
                for exchange in outcome.exchanges:
                    for text in exchange.messages:
                        prompt += await count(client, text) + TEMPLATE_TOKENS_PER_MESSAGE
                    completion += await count(client, exchange.reply)
                outcome.prompt_tokens, outcome.completion_tokens = prompt, completion
    except (httpx.HTTPError, KeyError, ValueError):
        return False
    return True


# ---- the table --------------------------------------------------------------------------------


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def summary_rows(outcomes: list[Outcome]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for system in SYSTEMS:
        mine = [outcome for outcome in outcomes if outcome.system == system]
        if not mine:
            continue
        count = len(mine)
        seconds = [outcome.seconds for outcome in mine]
        rows.append(
            (
                system,
                f"{sum(o.fact for o in mine)} / {count}",
                f"{sum(o.right_source for o in mine)} / {count}",
                f"{statistics.median(seconds):.1f}",
                f"{_percentile(seconds, 0.9):.1f}",
                f"{sum(o.prompt_tokens for o in mine) / count:.0f}",
                f"{sum(o.completion_tokens for o in mine) / count:.0f}",
                str(sum(1 for o in mine if o.error)),
            )
        )
    return rows


SUMMARY_HEADER = (
    "system",
    "fact in answer",
    "right source cited",
    "median s",
    "p90 s",
    "prompt tok/q",
    "compl tok/q",
    "errors",
)


def render(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    table = [header, *rows]
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    lines = [
        " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in table
    ]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(line.rstrip() for line in lines)


def question_rows(outcomes: list[Outcome]) -> list[tuple[str, ...]]:
    return [
        (
            o.question.id,
            o.system,
            "yes" if o.fact else "no",
            "yes" if o.right_source else "no",
            f"{o.seconds:.1f}",
            str(o.prompt_tokens),
            o.error or " ".join(o.answer.split())[:70],
        )
        for o in outcomes
    ]


# ---- main ---------------------------------------------------------------------------------------


async def run_all(args: argparse.Namespace) -> list[Outcome]:
    from engine.tools.local_index import LocalIndex

    questions = load_dataset(args.questions)[: args.limit or None]
    env = {"DOCUMENTS_PATH": str(args.documents.resolve()), "SEARCH_PROVIDER": "local"}
    base_dir = Path(tempfile.mkdtemp(prefix="quick-vs-rag-"))
    settings = load_settings({**os.environ, **env, "DATA_DIR": str(base_dir)})
    systems = [s for s in args.systems.split(",") if s]
    if settings.offline and "rag" in systems:
        print("the offline model has no endpoint: running `quick` only", file=sys.stderr)
        systems = [s for s in systems if s != "rag"]
    index_path = base_dir / "index.sqlite"
    index = LocalIndex(index_path, settings.resolved_documents_path)
    index.refresh()
    # The endpoint's remembered capabilities (`deepresearch doctor` stores them), so every run
    # measures research rather than capability probes.
    user_data = load_settings({**os.environ, **env}).data_dir
    profiles = base_dir / "model_profiles.json"
    if (Path(user_data) / profiles.name).is_file():
        shutil.copy2(Path(user_data) / profiles.name, profiles)
    outcomes: list[Outcome] = []
    try:
        for number, question in enumerate(questions):
            order = systems if number % 2 == 0 else list(reversed(systems))
            for system in order:
                if system == "rag":
                    outcome = await run_rag(question, settings, index, args.run_timeout)
                else:
                    run_dir = base_dir / f"{question.id}-quick"
                    run_dir.mkdir()
                    shutil.copy2(index_path, run_dir / "index.sqlite")
                    if profiles.is_file():
                        shutil.copy2(profiles, run_dir / profiles.name)
                    outcome = await run_quick(question, env, run_dir, args.run_timeout)
                    if (run_dir / profiles.name).is_file():
                        shutil.copy2(run_dir / profiles.name, profiles)
                outcomes.append(outcome)
                print(
                    f"{question.id} {system}: fact {'yes' if outcome.fact else 'no'}, "
                    f"source {'yes' if outcome.right_source else 'no'}, "
                    f"{outcome.seconds:.1f} s {outcome.error}",
                    file=sys.stderr,
                )
        counted = not settings.offline and await tokenizer_counts(settings, outcomes)
        args.token_count = (
            "tokens: counted by the endpoint's tokenizer, alike for both systems"
            if counted
            else "tokens: as each system reports them (no tokenizer endpoint)"
        )
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            records = [
                {
                    "id": o.question.id,
                    "system": o.system,
                    "fact": o.fact,
                    "right_source": o.right_source,
                    "seconds": round(o.seconds, 2),
                    "prompt_tokens": o.prompt_tokens,
                    "completion_tokens": o.completion_tokens,
                    "cited": o.cited,
                    "calls": len(o.exchanges),
                    "answer": o.answer,
                    "error": o.error,
                    "exchanges": [{"messages": e.messages, "reply": e.reply} for e in o.exchanges],
                }
                for o in outcomes
            ]
            (args.keep / "outcomes.jsonl").write_text(
                "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
            )
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("questions", type=Path, help="an eval set (JSON lines)")
    parser.add_argument("--documents", type=Path, required=True, help="the pages it is about")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="quick,rag (default both)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions")
    parser.add_argument("--rows", action="store_true", help="also print one row per answer")
    parser.add_argument("--run-timeout", type=float, default=600.0, help="seconds per answer")
    parser.add_argument(
        "--keep", type=Path, help="write every answer and every request sent to DIR/outcomes.jsonl"
    )
    args = parser.parse_args()
    outcomes = asyncio.run(run_all(args))
    if args.rows:
        header = ("id", "system", "fact", "source", "s", "prompt", "answer")
        print(render(header, question_rows(outcomes)))
        print()
    print(render(SUMMARY_HEADER, summary_rows(outcomes)))
    print(getattr(args, "token_count", ""))


if __name__ == "__main__":
    main()
