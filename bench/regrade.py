"""The same reports grounded two ways: the rules alone, and with the support judge.

    uv run python bench/regrade.py DIR [DIR ...]

Each DIR is a data folder a session ran in (`bench/real_model.py --keep` keeps each run's,
checkpoints included). Every session's written report is read back from its checkpoint and
put through the verifier's grounding twice, on the same sentences and the same retrieved
text: GROUNDING_JUDGE=off (the rules' verdicts), then =on with the judge the settings
configure (the writer's endpoint by default; load `local-llm env`). DOCUMENTS_PATH must be
the folder the session searched, so a local document is read whole, as the verifier read it.

It prints, per report and in total: cited sentences, kept as supported, marked, removed, and
the seconds the grounding took (the judge's calls, on the judged line). `--rules-only` skips
the judge: the same reports grounded by two states of the code, one run of this script each.
A comparison within one report, unlike two runs of a model that plans differently each time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.config import Settings, load_settings  # noqa: E402
from engine.nodes.deps import default_deps  # noqa: E402
from engine.nodes.verify import _checked  # noqa: E402
from engine.run.runner import open_engine  # noqa: E402
from engine.sessions import list_sessions  # noqa: E402


@dataclass(frozen=True)
class Graded:
    cited: int
    supported: int
    marked: int
    removed: int
    judge: str
    seconds: float

    def line(self, name: str) -> str:
        share = f"{100 * self.supported / self.cited:.0f} %" if self.cited else "-"
        return (
            f"| {name} | {self.cited} | {self.supported} ({share}) | {self.marked} | "
            f"{self.removed} | {self.seconds:.1f} | {self.judge} |"
        )


async def _graded(settings: Settings, values: dict[str, object]) -> Graded:
    started = time.monotonic()
    checked = await _checked(values, default_deps(settings))  # type: ignore[arg-type]
    claims = checked.grounded.claims
    return Graded(
        cited=len(claims),
        supported=sum(c.status == "supported" and c.action == "kept" for c in claims),
        marked=sum(
            c.action == "marked" or (c.action == "kept" and c.status != "supported") for c in claims
        ),
        removed=sum(c.action == "removed" for c in claims),
        judge=checked.judge_label,
        seconds=time.monotonic() - started,
    )


async def _regrade(data_dir: Path, *, judge: bool) -> list[tuple[str, Graded, Graded | None]]:
    base = load_settings().model_copy(update={"data_dir": data_dir})
    rules = base.model_copy(update={"grounding_judge": "off"})
    judged = base.model_copy(update={"grounding_judge": "on"})
    found: list[tuple[str, Graded, Graded | None]] = []
    async with open_engine(base) as session_for:
        for info in list_sessions(base):
            session = session_for(info.session_id)
            snapshot = await session.graph.aget_state(session.config)
            values = dict(snapshot.values)
            if not values.get("final_report"):
                continue
            name = f"{data_dir.name}/{info.session_id}"
            by_judge = await _graded(judged, values) if judge else None
            found.append((name, await _graded(rules, values), by_judge))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--rules-only", action="store_true", help="ground by the rules alone")
    args = parser.parse_args()
    if not os.environ.get("DOCUMENTS_PATH"):
        print("note: DOCUMENTS_PATH is not set; local documents are read from excerpts only")
    print("| report | cited | kept supported | marked | removed | seconds | judge |")
    print("|---|---|---|---|---|---|---|")
    totals = {"rules": [0.0] * 5, "judge": [0.0] * 5}
    for data_dir in args.dirs:
        for name, rules, judged in asyncio.run(_regrade(data_dir, judge=not args.rules_only)):
            print(rules.line(f"{name}, rules"))
            if judged is not None:
                print(judged.line(f"{name}, judge"))
            for key, graded in (("rules", rules), ("judge", judged)):
                if graded is None:
                    continue
                counts = (
                    graded.cited,
                    graded.supported,
                    graded.marked,
                    graded.removed,
                    graded.seconds,
                )
                totals[key] = [a + b for a, b in zip(totals[key], counts, strict=True)]
    for key, (cited, supported, marked, removed, seconds) in totals.items():
        if key == "judge" and args.rules_only:
            continue
        graded = Graded(int(cited), int(supported), int(marked), int(removed), "", seconds)
        print(graded.line(f"all, {key}"))


if __name__ == "__main__":
    main()
